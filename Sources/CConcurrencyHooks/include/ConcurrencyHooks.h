#ifndef GLUCOBRIDGE_CONCURRENCY_HOOKS_H
#define GLUCOBRIDGE_CONCURRENCY_HOOKS_H

#include <stdint.h>

/// Runs a Swift Concurrency job (a `Job *` of the runtime) on the caller's executor.
typedef void (*glucobridge_enqueue_job)(void *job);
/// Runs a Swift Concurrency job once `nanoseconds` have passed.
typedef void (*glucobridge_enqueue_job_after)(uint64_t nanoseconds, void *job);

/// Sends every job the Swift runtime would give its global executor (libdispatch's global
/// queues on Linux) through its C entry points, immediate or delayed, to these two functions
/// instead, through the runtime's `swift_task_enqueueGlobal*_hook` variables. (`Task.sleep` of
/// Swift 6.2 and later schedules its wake-up through libdispatch itself, past these hooks.)
/// Returns 0, or -1 when another hook is installed already. Call once, before any task starts.
int glucobridge_install_global_executor(glucobridge_enqueue_job enqueue, glucobridge_enqueue_job_after enqueue_after);

#endif

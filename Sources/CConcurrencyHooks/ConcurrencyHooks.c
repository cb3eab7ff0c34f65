#include "ConcurrencyHooks.h"

// The Swift runtime's hooks for its global executor (swift/include/swift/Runtime/Concurrency.h
// and ConcurrencyHooks.def in the Swift repository): each is called with the job and the
// runtime's own implementation, in the Swift calling convention.
extern void *swift_task_enqueueGlobal_hook;
extern void *swift_task_enqueueGlobalWithDelay_hook;
extern void *swift_task_enqueueGlobalWithDeadline_hook;
// The runtime's reading of its clocks, by the same id the deadline hook is given.
extern __attribute__((swiftcall)) void swift_get_time(long long *seconds, long long *nanoseconds, int clock_id);

static glucobridge_enqueue_job enqueue_now;
static glucobridge_enqueue_job_after enqueue_later;

__attribute__((swiftcall)) static void enqueue_global(void *job, void *original) {
    (void)original;
    enqueue_now(job);
}

__attribute__((swiftcall)) static void enqueue_global_with_delay(uint64_t delay, void *job, void *original) {
    (void)original;
    enqueue_later(delay, job);
}

// A deadline on one of the runtime's clocks (`clock`: continuous or suspending), read with the
// runtime's own `swift_get_time` so that both sides agree on the clock.
__attribute__((swiftcall)) static void enqueue_global_with_deadline(
    long long seconds, long long nanoseconds, long long tolerance_seconds, long long tolerance_nanoseconds,
    int clock, void *job, void *original) {
    (void)tolerance_seconds;
    (void)tolerance_nanoseconds;
    (void)original;
    long long now_seconds = 0, now_nanoseconds = 0;
    swift_get_time(&now_seconds, &now_nanoseconds, clock);
    long long delay = (seconds - now_seconds) * 1000000000LL + (nanoseconds - now_nanoseconds);
    enqueue_later(delay > 0 ? (uint64_t)delay : 0, job);
}

int glucobridge_install_global_executor(glucobridge_enqueue_job enqueue, glucobridge_enqueue_job_after enqueue_after) {
    if (swift_task_enqueueGlobal_hook || swift_task_enqueueGlobalWithDelay_hook || swift_task_enqueueGlobalWithDeadline_hook) {
        return -1;
    }
    enqueue_now = enqueue;
    enqueue_later = enqueue_after;
    swift_task_enqueueGlobalWithDelay_hook = (void *)enqueue_global_with_delay;
    swift_task_enqueueGlobalWithDeadline_hook = (void *)enqueue_global_with_deadline;
    swift_task_enqueueGlobal_hook = (void *)enqueue_global;
    return 0;
}

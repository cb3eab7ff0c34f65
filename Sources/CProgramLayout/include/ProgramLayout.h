#ifndef GLUCOBRIDGE_PROGRAM_LAYOUT_H
#define GLUCOBRIDGE_PROGRAM_LAYOUT_H

#include <stdint.h>

/// The address of a function that does nothing, in a section of its own: the release link
/// (Linker/glucobridge.order) places it right after the functions only the daemon's start-up
/// runs, which come first in the program's code. Elsewhere it is wherever the link put it.
uintptr_t glucobridge_start_up_code_end(void);

#endif

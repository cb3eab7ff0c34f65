#include "ProgramLayout.h"

// The marker itself. Its own section lets the symbol order of the link move it alone; `used`
// and `noinline` keep it from being folded away or dropped by --gc-sections.
__attribute__((section(".text.glucobridge_start_up_code_end_marker"), used, noinline))
void glucobridge_start_up_code_end_marker(void) {
    __asm__ volatile("");
}

uintptr_t glucobridge_start_up_code_end(void) {
    return (uintptr_t)&glucobridge_start_up_code_end_marker;
}

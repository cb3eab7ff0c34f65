#ifndef GLUCOBRIDGE_CLIBUSB_SHIM_H
#define GLUCOBRIDGE_CLIBUSB_SHIM_H
#include <libusb.h>

/* libusb_set_option is variadic, which Swift cannot call: wrap the forms we use. */
static inline int clibusb_set_log_level(libusb_context *ctx, int level) {
    return libusb_set_option(ctx, LIBUSB_OPTION_LOG_LEVEL, level);
}

static inline int clibusb_set_option_noarg(libusb_context *ctx, enum libusb_option opt) {
    return libusb_set_option(ctx, opt);
}
#endif

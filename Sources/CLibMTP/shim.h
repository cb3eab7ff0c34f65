#ifndef GLUCOBRIDGE_CLIBMTP_SHIM_H
#define GLUCOBRIDGE_CLIBMTP_SHIM_H
#include <libmtp.h>
#endif

#ifndef GLUCOBRIDGE_CSCSIGENERIC_SHIM_H
#define GLUCOBRIDGE_CSCSIGENERIC_SHIM_H
#include <sys/ioctl.h>
#include <scsi/sg.h>

/// SG_IO on `fd`: the ioctl is variadic, which Swift does not call.
static inline int glucobridge_sg_io(int fd, sg_io_hdr_t *header) { return ioctl(fd, SG_IO, header); }
#endif

#include "base/host_ops.h"

namespace npusim {

const char* to_string(HostOpKind kind) {
    switch (kind) {
        case HostOpKind::Kernel:
            return "kernel";
        case HostOpKind::Copy:
            return "copy";
        case HostOpKind::Memset:
            return "memset";
        case HostOpKind::EventRecord:
            return "event record";
        case HostOpKind::EventWait:
            return "event wait";
    }
    return "?";
}

}  // namespace npusim

#include "sync/check/findings.h"

namespace npusim {

std::string_view to_string(FindingKind kind) {
    switch (kind) {
        case FindingKind::RaceRAW:
            return "RAW";
        case FindingKind::RaceWAR:
            return "WAR";
        case FindingKind::RaceWAW:
            return "WAW";
        case FindingKind::UnpairedSetFlag:
            return "unpaired SetFlag";
        case FindingKind::DuplicateSetFlag:
            return "duplicate SetFlag";
        case FindingKind::UnsatisfiableWait:
            return "unsatisfiable wait";
        case FindingKind::CrossCoreOverflow:
            return "cross-core flag overflow";
        case FindingKind::OutOfBounds:
            return "out-of-bounds access";
        case FindingKind::UseAfterFree:
            return "use after free";
        case FindingKind::Leak:
            return "leak";
        case FindingKind::UnusedMemory:
            return "unused memory";
        case FindingKind::UninitializedRead:
            return "uninitialized read";
    }
    return "?";
}

std::string_view to_string(RaceScope scope) {
    switch (scope) {
        case RaceScope::IntraPipe:
            return "intra-pipe";
        case RaceScope::InterPipe:
            return "inter-pipe";
        case RaceScope::InterCore:
            return "inter-core";
        case RaceScope::InterStream:
            return "inter-stream";
        case RaceScope::Host:
            return "host";
        case RaceScope::None:
            return "";
    }
    return "";
}

std::string_view to_string(AccessOrigin origin) {
    switch (origin) {
        case AccessOrigin::Kernel:
            return "kernel";
        case AccessOrigin::Stream:
            return "stream";
        case AccessOrigin::HostThread:
            return "host";
    }
    return "?";
}

bool is_race(FindingKind kind) {
    return kind == FindingKind::RaceRAW || kind == FindingKind::RaceWAR ||
           kind == FindingKind::RaceWAW;
}

}  // namespace npusim

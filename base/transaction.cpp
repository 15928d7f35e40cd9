#include "base/transaction.h"

#include <string_view>

namespace npusim {

std::string_view to_string(Op op) {
    switch (op) {
        case Op::Copy:
            return "DataCopy";
        case Op::Add:
            return "Add";
        case Op::Sub:
            return "Sub";
        case Op::Mul:
            return "Mul";
        case Op::Max:
            return "Max";
        case Op::Min:
            return "Min";
        case Op::Adds:
            return "Adds";
        case Op::Muls:
            return "Muls";
        case Op::Exp:
            return "Exp";
        case Op::Relu:
            return "Relu";
        case Op::Fill:
            return "Duplicate";
        case Op::ReduceSum:
            return "ReduceSum";
        case Op::Cast:
            return "Cast";
        case Op::Mmad:
            return "Mmad";
        case Op::ScalarLoad:
            return "ScalarLoad";
        case Op::ScalarStore:
            return "ScalarStore";
        case Op::SetFlag:
            return "SetFlag";
        case Op::WaitFlag:
            return "WaitFlag";
        case Op::PipeBarrier:
            return "PipeBarrier";
        case Op::SyncAll:
            return "SyncAll";
        case Op::SoftSyncAll:
            return "SoftSyncAll";
        case Op::CrossCoreSetFlag:
            return "CrossCoreSetFlag";
        case Op::CrossCoreWaitFlag:
            return "CrossCoreWaitFlag";
    }
    return "?";
}

std::string format_location(const std::source_location& where) {
    std::string_view file = where.file_name();
    if (const auto slash = file.find_last_of('/'); slash != std::string_view::npos) {
        file.remove_prefix(slash + 1);
    }
    std::string text(file);
    text += ':';
    text += std::to_string(where.line());
    text += ':';
    text += std::to_string(where.column());
    return text;
}

}  // namespace npusim

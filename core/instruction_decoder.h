// The instruction decoder: checks one kernel API call against the hardware rules and turns it
// into a Transaction (pipe, operands, memory accesses). Pure: no SystemC, no timing, so every
// rule unit-tests without a kernel (tests/unit/core/instruction_decoder_test.cpp).
//
// Contract: the caller fills the transaction's identity (kernel, block, core, serial, source
// location) first; decode() fills the rest or throws KernelError whose message names kernel,
// block, core type, pipe, serial and source line:
//   kernel 'add' block 3 (aiv) PIPE_MTE2 serial 7 at add.cpp:41:9: DataCopy GM->UB length
//   40 bytes is not a multiple of 32 bytes
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/chip_config.h"
#include "base/copy_routes.h"
#include "base/kernel_type.h"
#include "base/transaction.h"
#include "core/request.h"

namespace npusim {

/// What decoding adds beyond the transaction itself.
struct DecodedInstruction {
    int write_access = -1;           // index of the access written at commit, -1 for none
    std::optional<CopyRoute> route;  // DataCopy and Fixpipe
};

class InstructionDecoder final {
public:
    InstructionDecoder(CoreType core_type, const ChipConfig& chip);

    /// The kernel whose blocks this core runs now (names in messages, kernel-type rules).
    void set_kernel(std::string_view name, KernelType type, std::uint32_t block_num) {
        m_kernel_name = name;
        m_kernel_type = type;
        m_block_num = block_num;
    }

    /// The pipe a request is issued to (PIPE_S for a copy without a route: decode rejects it).
    static Pipe pipe_of(const Request& request);
    /// Copies, vector and cube ops, SetFlag/WaitFlag and PipeBarrier.
    DecodedInstruction decode(const Request& request, Transaction& tx) const;
    /// ScalarLoad / ScalarStore of one element at `where`.
    DecodedInstruction decode_scalar_access(Op op, const Operand& where, Transaction& tx) const;
    /// CrossCoreSetFlag<mode, pipe>(flag_id): id, mode, pipe and kernel-type rules.
    void decode_cross_core_set(std::uint32_t mode, Pipe pipe, std::uint32_t flag_id,
                               Transaction& tx) const;
    void decode_cross_core_wait(std::uint32_t flag_id, Transaction& tx) const;
    /// "CrossCoreSetFlag<0, PIPE_S>(12)" / "CrossCoreWaitFlag(12)" for a decoded cross-core
    /// call, as rule errors name it.
    static std::string cross_core_call_name(const Transaction& tx);
    void decode_sync_all(SyncAllScope scope, Transaction& tx) const;

    /// Operand checks shared with the synchronization library (soft SyncAll workspaces).
    /// align 0: the space's DataCopy alignment.
    void check_local(const Transaction& tx, const Operand& operand, std::uint64_t count,
                     const char* role, std::uint64_t align = 0) const;
    void check_global(const Transaction& tx, const Operand& operand, std::uint64_t count,
                      const char* role) const;
    [[noreturn]] void rule_error(const Transaction& tx, const std::string& what) const;

    CoreType core_type() const { return m_core_type; }
    std::uint64_t local_capacity(MemSpace space) const {
        return m_local_capacity[static_cast<std::size_t>(space)];
    }

private:
    void decode_copy(const Request& r, Transaction& tx, DecodedInstruction& out) const;
    void decode_vector(const Request& r, Transaction& tx, DecodedInstruction& out) const;
    // Gather, GatherMask, Sort32, MrgSort, Transpose (OpInfo::rearranges).
    void decode_rearrange(const Request& r, Transaction& tx, DecodedInstruction& out) const;
    // Mmad, Fixpipe (core/instruction_decoder_cube.cpp).
    void decode_mmad(const Request& r, Transaction& tx, DecodedInstruction& out) const;
    void decode_fixpipe(const Request& r, Transaction& tx, DecodedInstruction& out) const;
    void decode_load_fractals(const Request& r, Transaction& tx, DecodedInstruction& out) const;
    void decode_img2col(const Request& r, Transaction& tx, DecodedInstruction& out) const;
    void decode_init_const(const Request& r, Transaction& tx, DecodedInstruction& out) const;
    void decode_nd2nz(const Request& r, Transaction& tx, DecodedInstruction& out) const;
    void decode_flag(const Request& r, Transaction& tx) const;
    void decode_barrier(const Request& r, Transaction& tx) const;

    CoreType m_core_type;
    std::array<std::uint64_t, kMemSpaces> m_local_capacity;
    std::uint64_t m_gm_capacity;
    std::uint64_t m_event_ids;
    std::string_view m_kernel_name;
    KernelType m_kernel_type = KernelType::AIV_ONLY;
    std::uint32_t m_block_num = 0;
};

}  // namespace npusim

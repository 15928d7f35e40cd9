// The Matmul API in a mixed kernel (MIX_AIC_1_2 / MIX_AIC_1_1): a Matmul object created in
// AIV code sends its calls as requests to its group's AIC, as the vendor's AIV -> AIC message
// mode does. The AIC's REGIST_MATMUL_OBJ serves them and returns from the kernel:
//   AIV: request into the group's channel, CrossCoreSetFlag mode 2 (PIPE_S) on
//        kMatmulMessageFlag; a call that needs the result waits for the reply.
//   AIC: CrossCoreWaitFlag(kMatmulMessageFlag), takes the oldest request, runs it on its own
//        Matmul object (the same type) as cube instructions (npusim_ascendc/matmul.h), C to GM:
//        to the user's GM, or to the AIV's slot of the system workspace when C goes to UB;
//        replies with a set on PIPE_FIX to that AIV only (kCrossCoreModeToAiv + sub-block).
//   AIV, C to UB: waits for the reply, copies the slot -> UB (MTE2), then orders MTE2 -> V.
// Each AIV's object sends a quit when it is destroyed; the AIC serves until every registered
// object of both AIVs has quit. docs/ascendc.md, "The Matmul API in a mixed kernel".
#pragma once

#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/cross_core_routing.h"
#include "npusim_ascendc/context.h"
#include "npusim_ascendc/cube_tiling.h"
#include "npusim_ascendc/pipe.h"
#include "npusim_ascendc/workspace.h"

namespace npusim::ascendc {

/// The cross-core flag id of the Matmul messages (both directions). A mixed kernel that uses
/// the Matmul API from its AIVs must not use it for its own CrossCoreSetFlag.
inline constexpr std::uint16_t kMatmulMessageFlag = 15;
/// Each AIV's slot in the system workspace for C tiles on their way to UB.
inline constexpr std::uint64_t kMatmulSlotBytes = 256 * 1024;

struct MatmulRequest {
    std::uint32_t object = 0;     // REGIST_MATMUL_OBJ's order
    std::uint32_t sub_block = 0;  // the requesting AIV
    bool quit = false;
    bool reply = false;
    std::function<void(void* engine)> run;  // on the AIC, with the AIC's object of that order
};

/// One group's requests, in the order of their flag sets.
struct MatmulChannel {
    std::deque<MatmulRequest> requests;
};

/// A channel per launch and group: on hardware the message queue lives in the launch's own
/// system workspace, so two launches of one kernel (two streams) never see each other's
/// requests. The launch object is unique among the launches that run at once (also across
/// simulators in one process); a channel goes when its AIC stops serving.
using MatmulChannelKey = std::pair<const npusim::LaunchIdentity*, std::uint32_t>;
inline std::map<MatmulChannelKey, MatmulChannel>& matmul_channels() {
    static std::map<MatmulChannelKey, MatmulChannel> channels;
    return channels;
}
inline MatmulChannelKey matmul_channel_key(npusim::Block& b) {
    return {&b.launch(), b.group_idx()};
}

/// True on the AIC of a mixed kernel: REGIST_MATMUL_OBJ serves the AIVs' requests there
/// (unless `cube_only`, ASCENDC_CUBE_ONLY: the AIC calls the Matmul itself, as the vendor's
/// cube-only mode). The macro is read where REGIST_MATMUL_OBJ expands, not in this inline
/// function: one program may hold kernels of both modes, and an inline function's body must
/// be the same in every source (at -O0 the linker keeps one copy for all).
inline bool matmul_serves_here(bool cube_only, Loc loc = Loc::current()) {
    if (cube_only) return false;
    npusim::Block& b = context(loc).block();
    return b.core_type() == npusim::CoreType::Cube &&
           npusim::vector_cores_per_block(b.kernel_type()) > 0;
}
#ifdef ASCENDC_CUBE_ONLY
#define NPUSIM_ASCENDC_CUBE_ONLY true
#else
#define NPUSIM_ASCENDC_CUBE_ONLY false
#endif

/// AIV: whether this core's Matmul objects are clients of the group's AIC.
inline bool matmul_is_client(npusim::Block& b) {
    return b.core_type() == npusim::CoreType::Vector &&
           npusim::cube_cores_per_block(b.kernel_type()) > 0;
}

/// AIV: queue `request` for the AIC and set the message flag (scalar pipe, in program order).
inline void matmul_send(MatmulRequest request, const Loc& loc) {
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    request.sub_block = ctx.block().sub_block_idx();
    matmul_channels()[matmul_channel_key(ctx.block())].requests.push_back(std::move(request));
    ctx.block().cross_core_set_flag(2, npusim::Pipe::S, kMatmulMessageFlag, loc);
}
/// AIV: wait for the AIC's reply to the last request that asked for one.
inline void matmul_wait_reply(const Loc& loc) {
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    ctx.block().cross_core_wait_flag(kMatmulMessageFlag, loc);
}
/// A set/wait pair between two pipes of this core, with an event id of the block's pool.
inline void matmul_order(npusim::Pipe src, npusim::Pipe dst, const Loc& loc) {
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    const std::int32_t id = ctx.event_ids().reserve(src, dst);
    if (id < 0) {
        throw KernelError(EventIds::where(loc) +
                          "Matmul: no free event id for the copy of C into UB (the kernel holds "
                          "every id of this pipe pair)");
    }
    ctx.set_flag(src, dst, static_cast<std::uint32_t>(id), loc);
    ctx.wait_flag(src, dst, static_cast<std::uint32_t>(id), loc);
    ctx.event_ids().release(src, dst, static_cast<std::uint32_t>(id));
}

/// AIV: the GM address of this AIV's slot in the system workspace `workspace`.
inline std::uint64_t matmul_slot(std::uint64_t workspace, std::uint64_t bytes, const Loc& loc) {
    KernelContext& ctx = context(loc);
    if (workspace == 0) {
        throw KernelError(EventIds::where(loc) +
                          "Matmul: C to UB in a mixed kernel goes through the system workspace, "
                          "but REGIST_MATMUL_OBJ was given none (pass GetSysWorkSpacePtr())");
    }
    const std::uint64_t offset = std::uint64_t{ctx.block().block_idx()} * kMatmulSlotBytes;
    if (bytes > kMatmulSlotBytes || offset + kMatmulSlotBytes > kSysWorkspaceBytes) {
        throw KernelError(EventIds::where(loc) + "Matmul: C of " + std::to_string(bytes) +
                          " bytes to UB on AIV " + std::to_string(ctx.block().block_idx()) +
                          " does not fit its " + std::to_string(kMatmulSlotBytes) +
                          "-byte slot of the system workspace");
    }
    return workspace + offset;
}

/// AIC: serve the group's AIVs until each registered object of each AIV has quit.
inline void matmul_serve(const std::vector<void*>& engines, const Loc& loc) {
    KernelContext& ctx = context(loc);
    npusim::Block& block = ctx.block();
    const auto key = matmul_channel_key(block);
    const std::uint64_t expected =
        std::uint64_t{npusim::vector_cores_per_block(block.kernel_type())} * engines.size();
    // The group's channel goes with this serve, also when an error unwinds the run (a later
    // run of the kernel must not find its requests).
    struct Erase {
        MatmulChannelKey key;
        ~Erase() { matmul_channels().erase(key); }
    } erase{key};
    std::uint64_t quits = 0;
    while (quits < expected) {
        {
            Resume resume(ctx);
            block.cross_core_wait_flag(kMatmulMessageFlag, loc);
        }
        std::deque<MatmulRequest>& queue = matmul_channels()[key].requests;
        if (queue.empty()) {
            throw KernelError(EventIds::where(loc) +
                              "Matmul: the AIC got a message flag without a Matmul request (the "
                              "kernel's own CrossCoreSetFlag uses id " +
                              std::to_string(kMatmulMessageFlag) +
                              ", which the Matmul API reserves in a mixed kernel)");
        }
        MatmulRequest request = std::move(queue.front());
        queue.pop_front();
        if (request.quit) {
            ++quits;
            continue;
        }
        if (request.object >= engines.size()) {
            throw KernelError(EventIds::where(loc) + "Matmul: a request for object " +
                              std::to_string(request.object) + " but the AIC registered " +
                              std::to_string(engines.size()));
        }
        request.run(engines[request.object]);
        if (request.reply) {
            Resume resume(ctx);
            block.cross_core_set_flag(npusim::kCrossCoreModeToAiv + request.sub_block,
                                      npusim::Pipe::FIX, kMatmulMessageFlag, loc);
        }
    }
}

}  // namespace npusim::ascendc

// ---- REGIST_MATMUL_OBJ ------------------------------------------------------------------

namespace npusim::ascendc {

inline void regist_matmul_objs(const Loc&, std::uint32_t, AscendC::TPipe*, GM_ADDR) {}
/// REGIST_MATMUL_OBJ(pipe, workspace, mm1, tiling1, mm2, tiling2, ...): Init each object
/// whose tiling is given (a null tiling leaves Init to the kernel). On an AIV of a mixed
/// kernel the objects become clients of the group's AIC, in this order.
template <class MM, class... Rest>
void regist_matmul_objs(const Loc& loc, std::uint32_t index, AscendC::TPipe* pipe,
                        GM_ADDR workspace, MM& mm, const TCubeTiling* tiling, Rest&&... rest) {
    if (tiling == nullptr) tiling = MM::npusim_static_tiling();
    mm.npusim_register(index, workspace, tiling != nullptr, loc);
    if (tiling != nullptr) mm.Init(tiling, pipe, loc);
    regist_matmul_objs(loc, index + 1, pipe, workspace, std::forward<Rest>(rest)...);
}
template <class MM>
void regist_matmul_objs(const Loc& loc, std::uint32_t index, AscendC::TPipe* pipe,
                        GM_ADDR workspace, MM& mm) {
    regist_matmul_objs(loc, index, pipe, workspace, mm, static_cast<const TCubeTiling*>(nullptr));
}

inline void serve_matmul_objs(const Loc& loc, std::vector<void*>& engines, AscendC::TPipe*) {
    matmul_serve(engines, loc);
}
/// The AIC of a mixed kernel: Init its own objects given a tiling (the buffers; the others at
/// their AIVs' Init) and serve the AIVs' requests.
template <class MM, class... Rest>
void serve_matmul_objs(const Loc& loc, std::vector<void*>& engines, AscendC::TPipe* pipe, MM& mm,
                       const TCubeTiling* tiling, Rest&&... rest) {
    // Without a tiling (nor a constant one) the AIVs' Init sends theirs (Matmul::serve_init).
    if (tiling == nullptr) tiling = MM::npusim_static_tiling();
    if (tiling != nullptr) mm.Init(tiling, pipe, loc);
    engines.push_back(&mm);
    serve_matmul_objs(loc, engines, pipe, std::forward<Rest>(rest)...);
}
template <class MM>
void serve_matmul_objs(const Loc& loc, std::vector<void*>& engines, AscendC::TPipe* pipe, MM& mm) {
    serve_matmul_objs(loc, engines, pipe, mm, static_cast<const TCubeTiling*>(nullptr));
}
template <class... Objects>
void serve_matmul(const Loc& loc, AscendC::TPipe* pipe, GM_ADDR, Objects&&... objects) {
    std::vector<void*> engines;
    serve_matmul_objs(loc, engines, pipe, std::forward<Objects>(objects)...);
}

}  // namespace npusim::ascendc

// On the AIC of a mixed kernel the macro serves the AIVs and returns from the kernel, as the
// vendor's does (npusim_ascendc/matmul_mix.h); elsewhere it registers (and Inits) the objects.
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...)                                        \
    if (::npusim::ascendc::matmul_serves_here(NPUSIM_ASCENDC_CUBE_ONLY)) {              \
        ::npusim::ascendc::serve_matmul(::npusim::ascendc::Loc::current(), tpipe,       \
                                        (GM_ADDR)(workspace), __VA_ARGS__);             \
        return;                                                                         \
    }                                                                                   \
    ::npusim::ascendc::regist_matmul_objs(::npusim::ascendc::Loc::current(), 0u, tpipe, \
                                          (GM_ADDR)(workspace), __VA_ARGS__)

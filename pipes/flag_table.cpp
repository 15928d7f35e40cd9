#include "pipes/flag_table.h"

#include "base/pipe_table.h"

namespace npusim {

namespace {
constexpr std::size_t kFlagPipes = kPipeCount;
std::size_t dense_index(Pipe pipe) {
    return static_cast<std::size_t>(pipe_index(pipe));
}
}  // namespace

FlagTable::FlagTable(std::uint32_t event_ids)
    : m_event_ids(event_ids), m_fifos(kFlagPipes * kFlagPipes * event_ids) {}

bool FlagTable::is_flag_pipe(Pipe pipe) {
    return is_real_pipe(pipe);
}

std::size_t FlagTable::key(Pipe src, Pipe dst, std::uint32_t id) const {
    return (dense_index(src) * kFlagPipes + dense_index(dst)) * m_event_ids + id;
}

void FlagTable::set(Pipe src, Pipe dst, std::uint32_t id, const FlagSet& set) {
    Fifo& fifo = m_fifos[key(src, dst, id)];
    if (fifo.head == fifo.items.size()) {  // empty: reuse the storage from the front
        fifo.items.clear();
        fifo.head = 0;
    }
    fifo.items.push_back(set);
}

std::optional<FlagSet> FlagTable::consume(Pipe src, Pipe dst, std::uint32_t id) {
    Fifo& fifo = m_fifos[key(src, dst, id)];
    if (fifo.head == fifo.items.size()) return std::nullopt;
    return fifo.items[fifo.head++];
}

std::size_t FlagTable::outstanding(Pipe src, Pipe dst, std::uint32_t id) const {
    const Fifo& fifo = m_fifos[key(src, dst, id)];
    return fifo.items.size() - fifo.head;
}

void FlagTable::clear() {
    for (Fifo& fifo : m_fifos) {
        fifo.items.clear();
        fifo.head = 0;
    }
}

}  // namespace npusim

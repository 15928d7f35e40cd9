#include "sync/flag_table.h"

namespace npusim {

namespace {
constexpr int kFlagPipes = 7;
// Dense index of the pipes that carry flags: S V M MTE1 MTE2 MTE3 FIX.
int dense_index(Pipe pipe) {
    switch (pipe) {
        case Pipe::S:
            return 0;
        case Pipe::V:
            return 1;
        case Pipe::M:
            return 2;
        case Pipe::MTE1:
            return 3;
        case Pipe::MTE2:
            return 4;
        case Pipe::MTE3:
            return 5;
        case Pipe::FIX:
            return 6;
        case Pipe::ALL:
            return -1;
    }
    return -1;
}
}  // namespace

FlagTable::FlagTable(std::uint32_t event_ids)
    : m_event_ids(event_ids),
      m_fifos(static_cast<std::size_t>(kFlagPipes) * kFlagPipes * event_ids) {}

bool FlagTable::is_flag_pipe(Pipe pipe) {
    return dense_index(pipe) >= 0;
}

std::size_t FlagTable::key(Pipe src, Pipe dst, std::uint32_t id) const {
    return (static_cast<std::size_t>(dense_index(src)) * kFlagPipes +
            static_cast<std::size_t>(dense_index(dst))) *
               m_event_ids +
           id;
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

// ACL streams and events (acl/acl.h): create, destroy, record, wait, query, synchronize,
// elapsed time, each mapped onto npusim::Runtime (sim/host/runtime.h).
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

inline aclError aclrtCreateStream(aclrtStream* stream,
                                  npusim::acl::Where where = npusim::acl::Where::current()) {
    if (stream == nullptr) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call(
        [&](npusim::Runtime& rt) { *stream = npusim::acl::handle_of(rt.create_stream(where)); });
}
inline aclError aclrtDestroyStream(aclrtStream stream,
                                   npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call(
        [&](npusim::Runtime& rt) { rt.destroy_stream(npusim::acl::stream_of(stream), where); });
}
inline aclError aclrtSynchronizeStream(aclrtStream stream,
                                       npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call(
        [&](npusim::Runtime& rt) { rt.synchronize_stream(npusim::acl::stream_of(stream), where); });
}
inline aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status,
                                 npusim::acl::Where where = npusim::acl::Where::current()) {
    if (status == nullptr) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        const npusim::Status s = rt.query_stream(npusim::acl::stream_of(stream), where);
        *status =
            s == npusim::Status::Success ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    });
}
inline aclError aclrtSynchronizeDevice(npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call([&](npusim::Runtime& rt) { rt.synchronize_device(where); });
}

/// Plain events record timestamps (usable with aclrtEventElapsedTime).
inline aclError aclrtCreateEvent(aclrtEvent* event,
                                 npusim::acl::Where where = npusim::acl::Where::current()) {
    if (event == nullptr) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        *event = npusim::acl::handle_of(rt.create_event(npusim::EventFlags::Default, where));
    });
}
/// Flags: ACL_EVENT_TIME_LINE keeps timestamps; without it the event has none.
inline aclError aclrtCreateEventWithFlag(aclrtEvent* event, std::uint32_t flag,
                                         npusim::acl::Where where = npusim::acl::Where::current()) {
    if (event == nullptr || (flag & ~(ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS |
                                      ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY)) != 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    const npusim::EventFlags flags = (flag & ACL_EVENT_TIME_LINE) != 0
                                         ? npusim::EventFlags::Default
                                         : npusim::EventFlags::DisableTiming;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        *event = npusim::acl::handle_of(rt.create_event(flags, where));
    });
}
/// As WithFlag, plus ACL_EVENT_IPC (alone): an interprocess event without timestamps.
inline aclError aclrtCreateEventExWithFlag(
    aclrtEvent* event, std::uint32_t flag,
    npusim::acl::Where where = npusim::acl::Where::current()) {
    if (flag == ACL_EVENT_IPC) {
        if (event == nullptr) return ACL_ERROR_INVALID_PARAM;
        return npusim::acl::call([&](npusim::Runtime& rt) {
            *event = npusim::acl::handle_of(rt.create_event(
                npusim::EventFlags::Interprocess | npusim::EventFlags::DisableTiming, where));
        });
    }
    if ((flag & ACL_EVENT_IPC) != 0) return ACL_ERROR_INVALID_PARAM;  // IPC cannot be OR-ed
    return aclrtCreateEventWithFlag(event, flag, where);
}
inline aclError aclrtDestroyEvent(aclrtEvent event,
                                  npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call(
        [&](npusim::Runtime& rt) { rt.destroy_event(npusim::acl::event_of(event), where); });
}
inline aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream,
                                 npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call([&](npusim::Runtime& rt) {
        rt.record_event(npusim::acl::event_of(event), npusim::acl::stream_of(stream), where);
    });
}
inline aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status,
                                      npusim::acl::Where where = npusim::acl::Where::current()) {
    if (status == nullptr) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        const npusim::Status s = rt.query_event(npusim::acl::event_of(event), where);
        *status = s == npusim::Status::Success ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                                               : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    });
}
/// Deprecated form, opposite numbering (COMPLETE = 0).
inline aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status,
                                npusim::acl::Where where = npusim::acl::Where::current()) {
    if (status == nullptr) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        const npusim::Status s = rt.query_event(npusim::acl::event_of(event), where);
        *status =
            s == npusim::Status::Success ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    });
}
inline aclError aclrtSynchronizeEvent(aclrtEvent event,
                                      npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call(
        [&](npusim::Runtime& rt) { rt.synchronize_event(npusim::acl::event_of(event), where); });
}
inline aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event,
                                     npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call([&](npusim::Runtime& rt) {
        rt.stream_wait_event(npusim::acl::stream_of(stream), npusim::acl::event_of(event), where);
    });
}
inline aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent,
                                      npusim::acl::Where where = npusim::acl::Where::current()) {
    if (ms == nullptr) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        *ms = static_cast<float>(rt.elapsed_ms(npusim::acl::event_of(startEvent),
                                               npusim::acl::event_of(endEvent), where));
    });
}

#include "core/process_guard.h"

#include <exception>
#include <string>

#include "base/errors.h"
#include "core/chip_resources.h"

namespace npusim {

void fail_with_current_exception(ChipResources& chip, std::string_view context) noexcept {
    const std::string prefix = context.empty() ? std::string() : std::string(context) + ": ";
    try {
        try {
            throw;
        } catch (const InternalError& error) {
            chip.fail(prefix + error.what(), /*internal=*/true);
        } catch (const std::exception& error) {
            chip.fail(prefix + error.what());
        } catch (...) {
            chip.fail(prefix + "a non-standard exception");
        }
    } catch (...) {
        // Out of memory while composing the message: still end the run.
        chip.abort = true;
        chip.abort_event.notify(sc_core::SC_ZERO_TIME);
    }
}

}  // namespace npusim

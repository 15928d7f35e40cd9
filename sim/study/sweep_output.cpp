#include "sim/study/sweep_output.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "base/config_diagnostics.h"
#include "base/config_file.h"
#include "base/errors.h"
#include "base/json_reader.h"
#include "base/output_file.h"
#include "sim/study/study_fingerprint.h"

namespace npusim {

namespace {

constexpr std::array<const char*, 7> kFixedColumns = {"task",   "point", "schedule", "seed",
                                                      "status", "error", ""};
constexpr std::size_t kFixedBefore = 4;  // task, point, schedule, seed, then the axes

std::string cell_text(const nlohmann::json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_null()) return "";
    return value.dump();
}

nlohmann::json cell_value(const std::string& text) {
    if (text.empty()) return "";
    nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
    if (!parsed.is_discarded()) return parsed;
    return text;
}

std::vector<nlohmann::json> row_cells(const SweepRow& row) {
    std::vector<nlohmann::json> cells = {row.task, row.point, row.schedule, row.seed};
    for (const nlohmann::json& v : row.values) cells.push_back(v);
    cells.emplace_back(row.status);
    cells.emplace_back(row.error);
    for (const char* column : kSweepResultColumns) {
        cells.push_back(row.result.contains(column) ? row.result[column] : nlohmann::json(""));
    }
    return cells;
}

bool read_count(const nlohmann::json& v, std::uint64_t& out) {
    if (!v.is_number_unsigned()) return false;
    out = v.get<std::uint64_t>();
    return true;
}

/// A row from its cells in column order; false if the fixed columns are not numbers.
bool row_from_cells(const std::vector<nlohmann::json>& cells, std::size_t axes, SweepRow& row) {
    std::uint64_t task = 0, point = 0, schedule = 0, seed = 0;
    if (!read_count(cells[0], task) || !read_count(cells[1], point) ||
        !read_count(cells[2], schedule) || !read_count(cells[3], seed)) {
        return false;
    }
    row.task = task;
    row.point = point;
    row.schedule = static_cast<std::uint32_t>(schedule);
    row.seed = seed;
    row.values.assign(cells.begin() + kFixedBefore, cells.begin() + kFixedBefore + axes);
    row.status = cell_text(cells[kFixedBefore + axes]);
    row.error = cell_text(cells[kFixedBefore + axes + 1]);
    row.result = nlohmann::json::object();
    for (std::size_t i = 0; i < kSweepResultColumns.size(); ++i) {
        row.result[kSweepResultColumns[i]] = cells[kFixedBefore + axes + 2 + i];
    }
    return true;
}

}  // namespace

std::vector<std::string> sweep_columns(const std::vector<std::string>& axis_pointers) {
    std::vector<std::string> columns(kFixedColumns.begin(), kFixedColumns.begin() + kFixedBefore);
    columns.insert(columns.end(), axis_pointers.begin(), axis_pointers.end());
    columns.emplace_back("status");
    columns.emplace_back("error");
    for (const char* c : kSweepResultColumns) columns.emplace_back(c);
    return columns;
}

std::vector<std::string> axis_pointers(const SweepPlan& plan) {
    std::vector<std::string> pointers;
    for (const SweepAxis& axis : plan.axes) pointers.push_back(axis.pointer);
    return pointers;
}

std::string csv_line(const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (i > 0) line += ',';
        const std::string& c = cells[i];
        if (c.find_first_of(",\"\n\r") == std::string::npos) {
            line += c;
            continue;
        }
        line += '"';
        for (char ch : c) {
            if (ch == '"') line += '"';
            line += (ch == '\n' || ch == '\r') ? ' ' : ch;
        }
        line += '"';
    }
    return line;
}

std::vector<std::string> parse_csv_line(const std::string& line, bool& ok) {
    std::vector<std::string> cells(1);
    ok = true;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        if (quoted) {
            if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cells.back() += '"';
                ++i;
            } else if (ch == '"') {
                quoted = false;
            } else {
                cells.back() += ch;
            }
        } else if (ch == '"') {
            quoted = true;
        } else if (ch == ',') {
            cells.emplace_back();
        } else {
            cells.back() += ch;
        }
    }
    if (quoted) ok = false;
    return cells;
}

void write_sweep_output(const std::filesystem::path& file, const std::string& source,
                        const std::vector<std::string>& pointers, const nlohmann::json& study,
                        std::vector<SweepRow> rows) {
    std::sort(rows.begin(), rows.end(),
              [](const SweepRow& a, const SweepRow& b) { return a.task < b.task; });
    const std::vector<std::string> columns = sweep_columns(pointers);
    std::string text;
    if (file.extension() == ".json") {
        nlohmann::ordered_json out;
        out["npusim_sweep"] = 1;
        out["source"] = source;
        out["study"] = study;
        out["columns"] = columns;
        out["rows"] = nlohmann::ordered_json::array();
        for (const SweepRow& row : rows) {
            const std::vector<nlohmann::json> cells = row_cells(row);
            nlohmann::ordered_json r;
            for (std::size_t i = 0; i < columns.size(); ++i) r[columns[i]] = cells[i];
            out["rows"].push_back(std::move(r));
        }
        text = out.dump(1) + "\n";
    } else {
        text = "# npusim sweep of " + source + "\n";
        if (!study.is_null()) text += "# study " + study.dump() + "\n";
        text += csv_line(columns) + "\n";
        for (const SweepRow& row : rows) {
            std::vector<std::string> cells;
            for (const nlohmann::json& c : row_cells(row)) cells.push_back(cell_text(c));
            text += csv_line(cells) + "\n";
        }
    }
    write_output_file(file, text, "sweep output");
}

SweepOutput read_sweep_output(const std::filesystem::path& file) {
    const std::string text = read_config_file(file);
    Diagnostics diag(file.string());
    SweepOutput output;
    const std::size_t fixed = kFixedBefore + 2 + kSweepResultColumns.size();
    if (file.extension() == ".json") {
        std::optional<nlohmann::json> doc = parse_json(text, diag);
        diag.throw_if_any();
        if (!doc->is_object() || !doc->contains("columns") || !(*doc)["columns"].is_array() ||
            !doc->contains("rows") || !(*doc)["rows"].is_array() ||
            (*doc)["columns"].size() < fixed) {
            diag.add("", "not an npusim sweep output (no \"columns\" and \"rows\")");
            diag.throw_if_any();
        }
        const nlohmann::json& columns = (*doc)["columns"];
        output.source = doc->value("source", "");
        if (doc->contains("study")) output.study = (*doc)["study"];
        const std::size_t axes = columns.size() - fixed;
        for (std::size_t i = 0; i < axes; ++i) {
            output.axis_pointers.push_back(columns[kFixedBefore + i].get<std::string>());
        }
        const nlohmann::json& rows = (*doc)["rows"];
        for (std::size_t r = 0; r < rows.size(); ++r) {
            std::vector<nlohmann::json> cells;
            for (const nlohmann::json& c : columns) {
                const std::string name = c.is_string() ? c.get<std::string>() : "";
                cells.push_back(rows[r].is_object() && rows[r].contains(name) ? rows[r][name]
                                                                              : nlohmann::json(""));
            }
            SweepRow row;
            if (!row_from_cells(cells, axes, row)) {
                diag.add("/rows/" + std::to_string(r),
                         "task, point, schedule and seed must be "
                         "unsigned integers");
                continue;
            }
            output.rows.push_back(std::move(row));
        }
        diag.throw_if_any();
        return output;
    }
    std::istringstream in(text);
    std::string line;
    std::size_t number = 0;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        if (line.rfind("# npusim sweep of ", 0) == 0) {
            output.source = line.substr(18);
            continue;
        }
        if (line.rfind("# study ", 0) == 0) {
            output.study = nlohmann::json::parse(line.substr(8), nullptr, false);
            if (output.study.is_discarded()) {
                diag.add("", "line " + std::to_string(number) + ": the study line is not JSON");
                output.study = nullptr;
            }
            continue;
        }
        bool ok = true;
        std::vector<std::string> cells = parse_csv_line(line, ok);
        const std::string at = "line " + std::to_string(number);
        if (!ok) {
            diag.add("", at + ": an unterminated quote");
            continue;
        }
        if (header.empty()) {
            header = cells;
            if (header.size() < fixed || header[0] != "task") {
                diag.add("", at + ": not an npusim sweep output header");
                diag.throw_if_any();
            }
            for (std::size_t i = 0; i < header.size() - fixed; ++i) {
                output.axis_pointers.push_back(header[kFixedBefore + i]);
            }
            continue;
        }
        if (cells.size() != header.size()) {
            diag.add("", at + ": " + std::to_string(cells.size()) + " cells, the header has " +
                             std::to_string(header.size()));
            continue;
        }
        std::vector<nlohmann::json> values;
        for (const std::string& c : cells) values.push_back(cell_value(c));
        SweepRow row;
        if (!row_from_cells(values, output.axis_pointers.size(), row)) {
            diag.add("", at + ": task, point, schedule and seed must be unsigned integers");
            continue;
        }
        output.rows.push_back(std::move(row));
    }
    if (header.empty()) diag.add("", "empty: not an npusim sweep output");
    diag.throw_if_any();
    return output;
}

SweepOutput merge_sweep_outputs(const std::vector<SweepOutput>& inputs,
                                const std::vector<std::string>& names) {
    SweepOutput merged;
    if (inputs.empty()) return merged;
    const SweepOutput& first = inputs.front();
    const auto name_of = [&](std::size_t i) {
        return i < names.size() ? names[i] : "input " + std::to_string(i + 1);
    };
    merged.source = first.source;
    merged.axis_pointers = first.axis_pointers;
    merged.study = first.study;
    if (merged.study.is_object()) merged.study["shard"] = "1/1";
    std::map<std::size_t, const SweepRow*> by_task;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const SweepOutput& input = inputs[i];
        std::string difference;
        if (first.study.is_object() || input.study.is_object()) {
            difference = study_difference(first.study, input.study, name_of(0), name_of(i));
        } else if (input.axis_pointers != first.axis_pointers || input.source != first.source) {
            difference = "source or axes differ: " + first.source + " vs " + input.source;
        }
        if (!difference.empty()) {
            throw UsageError("merge: " + name_of(i) + " is from a different study than " +
                             name_of(0) + ": " + difference);
        }
        for (const SweepRow& row : input.rows) by_task.emplace(row.task, &row);
    }
    for (const auto& [task, row] : by_task) merged.rows.push_back(*row);
    return merged;
}

}  // namespace npusim

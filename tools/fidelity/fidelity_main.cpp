// npusim-fidelity: the simulator's predictions against published Atlas A2 measurements
// (docs/fidelity.md). Reads tools/fidelity/a2-published.csv, runs one kernel per row on the
// a2 preset in data-free timing mode, prints the table and the summary, and writes
// fidelity.json and fidelity.csv into --out.
//
//   npusim-fidelity [--csv FILE] [--out DIR] [--case ID]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/chip_config.h"
#include "fidelity_kernels.h"

namespace {

using nlohmann::json;

std::vector<std::string> split_csv_line(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == '"') {
            if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else {
                quoted = !quoted;
            }
        } else if (c == ',' && !quoted) {
            fields.emplace_back();
        } else if (c != '\r') {
            fields.back() += c;
        }
    }
    return fields;
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"") == std::string::npos) return text;
    std::string out = "\"";
    for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

/// "mte2 6208.8 us; vec 761.65 us" -> the number after `key`, or a negative value.
double published_pipe(const std::string& text, const std::string& key) {
    const std::size_t at = text.find(key + " ");
    if (at == std::string::npos) return -1.0;
    return std::atof(text.c_str() + at + key.size() + 1);
}

std::vector<double> ranks(const std::vector<double>& values) {
    std::vector<std::size_t> order(values.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    std::vector<double> rank(values.size());
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
        for (std::size_t k = i; k <= j; ++k)
            rank[order[k]] = (static_cast<double>(i + j) / 2.0) + 1.0;
        i = j + 1;
    }
    return rank;
}

/// Spearman rank correlation (Pearson correlation of the ranks, ties averaged).
double spearman(const std::vector<double>& x, const std::vector<double>& y) {
    const std::vector<double> rx = ranks(x), ry = ranks(y);
    const double n = static_cast<double>(x.size());
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        mx += rx[i] / n;
        my += ry[i] / n;
    }
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    return sxx == 0 || syy == 0 ? 0.0 : sxy / std::sqrt(sxx * syy);
}

struct Row {
    std::map<std::string, std::string> field;
    bool ran = false;
    double predicted_us = 0, ratio = 0, mte2_us = -1, vec_us = -1, cube_us = -1, l2_hit = 0;
    std::uint64_t instructions = 0;
    std::string note;
};

}  // namespace

int main(int argc, char** argv) {
    std::filesystem::path csv = NPUSIM_SOURCE_DIR "/tools/fidelity/a2-published.csv";
    std::filesystem::path out = "fidelity-out";
    std::string only;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--csv") csv = argv[i + 1];
        if (flag == "--out") out = argv[i + 1];
        if (flag == "--case") only = argv[i + 1];
    }
    std::ifstream in(csv);
    if (!in) {
        std::fprintf(stderr, "npusim-fidelity: cannot read %s\n", csv.c_str());
        return 2;
    }
    const double mhz = static_cast<double>(npusim::builtin_chip_config("a2").clock_mhz);
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = split_csv_line(line);
    std::vector<Row> rows;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const std::vector<std::string> fields = split_csv_line(line);
        Row row;
        for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i)
            row.field[header[i]] = fields[i];
        if (!only.empty() && row.field["id"] != only) continue;
        std::string why;
        std::fprintf(stderr, "running %s ...\n", row.field["id"].c_str());
        const auto p = npusim::fidelity::run_case(row.field["id"], why);
        if (p) {
            row.ran = true;
            row.predicted_us =
                static_cast<double>(p->compare_cube_busy ? p->cube_avg_cycles : p->cycles) / mhz;
            row.l2_hit = p->gm_read_bytes == 0 ? 0.0
                                               : static_cast<double>(p->l2_hit_bytes) /
                                                     static_cast<double>(p->gm_read_bytes);
            row.mte2_us = static_cast<double>(p->mte2_cycles) / mhz;
            row.vec_us = static_cast<double>(p->vec_cycles) / mhz;
            row.cube_us = static_cast<double>(p->cube_cycles) / mhz;
            row.instructions = p->instructions;
            row.note = p->note;
            if (p->compare_cube_busy) row.note += "cube busy time (mean over cores) compared";
            row.ratio = row.predicted_us / std::atof(row.field["measured_us"].c_str());
        } else {
            row.note = "not supported yet: " + why;
        }
        rows.push_back(row);
    }

    std::filesystem::create_directories(out);
    json doc;
    std::ofstream table(out / "fidelity.csv");
    table << "id,split,family,measured_us,predicted_us,ratio,published_mte2_us,predicted_mte2_us,"
             "predicted_vec_us,predicted_cube_us,l2_read_hit_rate,note\n";
    std::printf("%-4s %-11s %-7s %11s %11s %7s %10s %10s %6s  %s\n", "id", "split", "family",
                "measured", "predicted", "ratio", "mte2 pub", "mte2 sim", "L2 hit", "note");
    for (const Row& r : rows) {
        const double measured = std::atof(r.field.at("measured_us").c_str());
        const double mte2_pub = published_pipe(r.field.at("also_published"), "mte2");
        std::printf("%-4s %-11s %-7s %11.2f %11.2f %7.3f %10.1f %10.1f %5.1f%%  %s\n",
                    r.field.at("id").c_str(), r.field.at("split").c_str(),
                    r.field.at("family").c_str(), measured, r.predicted_us, r.ratio, mte2_pub,
                    r.mte2_us, 100.0 * r.l2_hit, r.note.c_str());
        table << r.field.at("id") << ',' << r.field.at("split") << ',' << r.field.at("family")
              << ',' << measured << ',' << r.predicted_us << ',' << r.ratio << ',' << mte2_pub
              << ',' << r.mte2_us << ',' << r.vec_us << ',' << r.cube_us << ',' << r.l2_hit << ','
              << csv_field(r.note) << '\n';
        doc["cases"].push_back(
            {{"id", r.field.at("id")},
             {"split", r.field.at("split")},
             {"family", r.field.at("family")},
             {"kernel", r.field.at("kernel")},
             {"measured_us", measured},
             {"ran", r.ran},
             {"predicted_us", r.predicted_us},
             {"ratio", r.ratio},
             {"published_mte2_us", mte2_pub},
             {"predicted_mte2_us", r.mte2_us},
             {"predicted_vec_us", r.vec_us},
             {"predicted_cube_us", r.cube_us},
             {"l2_read_hit_rate", r.l2_hit},
             {"instructions", r.instructions},
             {"note", r.note},
             {"source", r.field.at("source_repo") + "/" + r.field.at("source_path") + "@" +
                            r.field.at("source_commit")}});
    }
    std::printf("\n");
    for (const std::string split : {"calibration", "benchmark"}) {
        double ape = 0, log_sum = 0, worst = 1.0;
        int n = 0, missing = 0;
        for (const Row& r : rows) {
            if (r.field.at("split") != split) continue;
            if (!r.ran) {
                ++missing;
                continue;
            }
            ape += std::fabs(r.ratio - 1.0);
            log_sum += std::fabs(std::log(r.ratio));
            if (std::fabs(std::log(r.ratio)) > std::fabs(std::log(worst))) worst = r.ratio;
            ++n;
        }
        if (n == 0) continue;
        const double mape = 100.0 * ape / n, geo = std::exp(log_sum / n);
        std::printf(
            "%-11s: %d cases run (%d not supported yet), MAPE %.1f%%, geomean |log ratio| "
            "x%.3f, worst ratio %.3f\n",
            split.c_str(), n, missing, mape, geo, worst);
        doc["summary"][split] = {{"cases_run", n},
                                 {"not_supported", missing},
                                 {"mape_percent", mape},
                                 {"geomean_abs_log_ratio_factor", geo},
                                 {"worst_ratio", worst}};
    }
    std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> families;
    for (const Row& r : rows) {
        if (!r.ran) continue;
        auto& f = families[r.field.at("family")];
        f.first.push_back(std::atof(r.field.at("measured_us").c_str()));
        f.second.push_back(r.predicted_us);
    }
    for (const auto& [family, values] : families) {
        if (values.first.size() < 2) continue;
        const double rho = spearman(values.first, values.second);
        std::printf("family %-7s: Spearman rank correlation %.3f over %zu cases\n", family.c_str(),
                    rho, values.first.size());
        doc["families"][family] = {{"spearman", rho}, {"cases", values.first.size()}};
    }
    std::ofstream(out / "fidelity.json") << doc.dump(2) << '\n';
    std::printf("wrote %s and %s\n", (out / "fidelity.json").c_str(),
                (out / "fidelity.csv").c_str());
    return 0;
}

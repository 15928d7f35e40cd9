// File helpers of this sample (each sample carries its own).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

inline bool ReadFile(const std::string& path, size_t& size, void* buffer, size_t bufferSize) {
    FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
        std::fprintf(stderr, "cannot open %s\n", path.c_str());
        return false;
    }
    size = std::fread(buffer, 1, bufferSize, file);
    std::fclose(file);
    return true;
}

inline bool WriteFile(const std::string& path, const void* buffer, size_t size) {
    FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) {
        std::fprintf(stderr, "cannot create %s\n", path.c_str());
        return false;
    }
    const size_t written = std::fwrite(buffer, 1, size, file);
    std::fclose(file);
    return written == size;
}

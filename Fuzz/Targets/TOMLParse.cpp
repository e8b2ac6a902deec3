// The toml++ parse TOMLKit performs (CTOML's Table.cpp: toml::parse, parse_error caught),
// for ConfigurationTextFuzz. Compiled without NDEBUG, so toml++'s assertions abort.
#define TOML_EXCEPTIONS 1
#include "toml.hpp"

extern "C" int bikepath_fuzz_toml_parse(const char *bytes, long count) {
    try {
        auto table = toml::parse(std::string_view(bytes, static_cast<size_t>(count)));
        return 1;
    } catch (const toml::parse_error &) {
        return 0;
    }
}

// Precompiled for every test suite (tests/CMakeLists.txt, superstep_test_pch): Boost.Test and
// the standard headers most suites include. Only headers whose meaning no suite's own macros
// change belong here.
#pragma once
#include <algorithm>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "superstep/core/error.hpp"
#include "superstep/core/value.hpp"

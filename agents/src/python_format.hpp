// Values written as Python writes them, where LangGraph's messages show Python's text: tool
// answers as json.dumps(ensure_ascii=False) makes them, arguments as repr() shows a dict.
#pragma once

#include <string>

#include "superstep/core/value.hpp"

namespace superstep::agents::detail {

/// json.dumps(v, ensure_ascii=False): ", " and ": " separators, non-ASCII kept.
std::string python_json(const value& v);

/// repr(v) of the Python value: {'a': 1, 'b': 'x'}, True, None, [1, 2].
std::string python_repr(const value& v);

}  // namespace superstep::agents::detail

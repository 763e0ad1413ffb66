#pragma once

// "Did you mean" suggestions for mistyped names (commands, options, functions).

#include <string>
#include <string_view>
#include <vector>

namespace superstep::cluster {

/// " (did you mean 'x'?)" naming the candidates closest to `word` (within an edit distance of
/// a third of its length, adjacent transpositions counting one), or "" when none is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace superstep::cluster

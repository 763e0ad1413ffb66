#include "nodes/suggest.hpp"

#include <algorithm>

namespace superstep::cluster {

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  // Edit distance with adjacent transpositions (optimal string alignment); a candidate within
  // a third of the word's length is a likely typo.
  auto distance = [](std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
      for (std::size_t j = 1; j <= b.size(); ++j) {
        d[i][j] = std::min(
            {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
          d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    return d[a.size()][b.size()];
  };
  // A word whose letters all appear in order in a candidate is an abbreviation of it
  // ("std.dbl" of "std.double"): those come first.
  auto abbreviates = [](std::string_view a, std::string_view b) {
    std::size_t j = 0;
    for (char c : b)
      if (j < a.size() && a[j] == c) ++j;
    return j == a.size();
  };
  std::vector<std::string> close;
  for (const auto& c : candidates)
    if (c.size() > word.size() && abbreviates(word, c) &&
        std::find(close.begin(), close.end(), c) == close.end())
      close.push_back(c);
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::size_t best = limit + 1;
  if (close.empty())
    for (const auto& c : candidates) {
      std::size_t d = distance(word, c);
      if (d > limit || d > best) continue;
      if (d < best) close.clear(), best = d;
      if (std::find(close.begin(), close.end(), c) == close.end()) close.push_back(c);
    }
  if (close.empty()) return "";
  std::string out = " (did you mean ";
  for (std::size_t i = 0; i < close.size(); ++i)
    out += (i ? (i + 1 == close.size() ? " or '" : ", '") : "'") + close[i] + "'";
  return out + "?)";
}

}  // namespace superstep::cluster

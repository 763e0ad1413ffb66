// store::batch on top of the single-operation methods, with LangGraph's deduplication
// (langgraph/store/base/batch.py): equal reads run once, the last write to a key wins.

#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "superstep/checkpoint/store.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/store_support.hpp"

namespace superstep::storage {

namespace support = store_support;

namespace {

std::string_view op_name(const store_op& op) {
  static constexpr std::string_view names[] = {"get", "put", "remove", "search", "list_namespaces"};
  return names[op.index()];
}

// Throws invalid_argument, as the single-operation method would, if `op` is bad.
void check_op(const store_op& op) {
  std::visit(
      [](const auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, get_op> || std::is_same_v<T, remove_op>) {
          support::check_namespace(o.ns);
        } else if constexpr (std::is_same_v<T, put_op>) {
          support::check_namespace(o.ns);
          support::check_item(o.key, o.v);
          support::check_ttl(o.ttl.minutes(), "the TTL of item \"" + o.key + "\"");
        } else if constexpr (std::is_same_v<T, search_op>) {
          support::check_filter(o.filter);
        }
      },
      op);
}

bool is_write(const store_op& op) {
  return std::holds_alternative<put_op>(op) || std::holds_alternative<remove_op>(op);
}

std::pair<const namespace_path*, const std::string*> write_target(const store_op& op) {
  if (const auto* p = std::get_if<put_op>(&op)) return {&p->ns, &p->key};
  const auto& r = std::get<remove_op>(op);
  return {&r.ns, &r.key};
}

// Equal reads: the same kind with equal arguments (a get's refresh_ttl included, as LangGraph
// compares whole operations).
bool same_read(const store_op& a, const store_op& b) {
  if (a.index() != b.index()) return false;
  if (const auto* s = std::get_if<search_op>(&a)) return *s == std::get<search_op>(b);
  if (const auto* l = std::get_if<list_namespaces_op>(&a))
    return *l == std::get<list_namespaces_op>(b);
  return false;  // gets are matched by `get_slots`
}

}  // namespace

std::vector<store_op_result> store::batch(const std::vector<store_op>& ops) {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    try {
      check_op(ops[i]);
    } catch (const error& e) {
      std::string_view message = e.what();
      if (message.starts_with("store: ")) message.remove_prefix(7);
      throw error(e.code(), "store: batch operation " + std::to_string(i) + " (" +
                                std::string(op_name(ops[i])) + "): " + std::string(message));
    }
  }

  // The operations to run, in order, as indices into `ops`, and for each operation of the
  // batch the position of the one that answers it.
  std::vector<std::size_t> run;
  std::vector<std::size_t> answered_by(ops.size());
  using key = std::pair<const namespace_path*, const std::string*>;
  const auto key_less = [](const key& a, const key& b) {
    return std::tie(*a.first, *a.second) < std::tie(*b.first, *b.second);
  };
  std::map<key, std::size_t, decltype(key_less)> write_slots(key_less);
  std::map<std::tuple<namespace_path, std::string, std::optional<bool>>, std::size_t> get_slots;
  std::vector<std::size_t> other_reads;  // positions in `run` of searches and listings
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const store_op& op = ops[i];
    if (is_write(op)) {
      const auto [slot, fresh] = write_slots.try_emplace(write_target(op), run.size());
      if (fresh) {
        run.push_back(i);
      } else {
        run[slot->second] = i;  // the last write to a key takes the place of the first
      }
      answered_by[i] = slot->second;
    } else if (const auto* g = std::get_if<get_op>(&op)) {
      const auto [slot, fresh] = get_slots.try_emplace({g->ns, g->key, g->refresh_ttl}, run.size());
      if (fresh) run.push_back(i);
      answered_by[i] = slot->second;
    } else {
      std::size_t slot = run.size();
      for (std::size_t r : other_reads)
        if (same_read(ops[run[r]], op)) slot = r;
      if (slot == run.size()) {
        other_reads.push_back(slot);
        run.push_back(i);
      }
      answered_by[i] = slot;
    }
  }

  std::vector<store_op_result> results(run.size());
  for (std::size_t r = 0; r < run.size(); ++r) {
    results[r] = std::visit(
        [this](const auto& o) -> store_op_result {
          using T = std::decay_t<decltype(o)>;
          if constexpr (std::is_same_v<T, get_op>) {
            return get(o.ns, o.key, o.refresh_ttl);
          } else if constexpr (std::is_same_v<T, put_op>) {
            put_from_batch(o);
            return std::monostate{};
          } else if constexpr (std::is_same_v<T, remove_op>) {
            remove(o.ns, o.key);
            return std::monostate{};
          } else if constexpr (std::is_same_v<T, search_op>) {
            return search(o);
          } else {
            return list_namespaces(o);
          }
        },
        ops[run[r]]);
  }

  std::vector<store_op_result> out;
  out.reserve(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (is_write(ops[i])) {
      out.emplace_back(std::monostate{});
    } else {
      out.push_back(results[answered_by[i]]);
    }
  }
  return out;
}

}  // namespace superstep::storage

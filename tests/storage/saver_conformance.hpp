#pragma once

// The conformance suite every checkpoint saver passes (LangGraph's checkpoint-conformance).
// The checks (saver_conformance_checks.hpp) each take a fresh, empty `checkpoint_saver&`;
// SUPERSTEP_SAVER_CONFORMANCE(make) defines one Boost test case per check, `make()` returning
// a std::unique_ptr or std::shared_ptr to a new saver.

#include "saver_conformance_changes.hpp"
#include "saver_conformance_checks.hpp"
#include "saver_conformance_rollback.hpp"
#include "saver_conformance_runs.hpp"

/// Defines one test case per conformance check, each with a fresh saver from `make()`.
#define SUPERSTEP_SAVER_CONFORMANCE_CASE(check, make) \
  BOOST_AUTO_TEST_CASE(check) {                       \
    auto saver = make();                              \
    superstep::conformance::check(*saver);            \
  }

#define SUPERSTEP_SAVER_CONFORMANCE(make)                                                        \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(put_round_trips_every_value_kind_and_the_checkpoint, make)    \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(put_tracks_the_parent_of_each_checkpoint, make)               \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(namespaces_of_a_thread_are_isolated, make)                    \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(unchanged_channels_keep_their_older_value, make)              \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(put_writes_is_idempotent_per_task_and_index, make)            \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(special_writes_replace_the_stored_one, make)                  \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(writes_of_several_tasks_saved_together, make)                 \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(a_task_with_very_many_writes_comes_back_whole, make)          \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(writes_saved_together_and_alone_all_come_back, make)          \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(a_task_saved_again_with_more_writes_keeps_its_first, make)    \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(latest_version_is_the_highest_of_every_branch, make)          \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(get_tuple_finds_latest_exact_or_nothing, make)                \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(list_is_newest_first_and_filters_by_metadata, make)           \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(list_pages_with_exclusive_before_and_limit, make)             \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(list_spans_threads_when_no_thread_is_given, make)             \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(delete_thread_removes_every_namespace_only, make)             \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(thread_ids_names_each_thread_once, make)                      \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(concurrent_put_writes_are_all_kept, make)                     \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(next_versions_increase, make)                                 \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(put_changes_reads_back_every_checkpoint_of_a_long_line, make) \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(put_changes_forks_and_siblings_read_back, make)               \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(put_changes_prune_and_copy_keep_checkpoints_whole, make)      \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(delete_checkpoints_removes_only_those_named, make)            \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(delete_writes_removes_the_writes_of_one_checkpoint, make)     \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(delete_for_runs_follows_copies_deletes_prunes_and_puts, make) \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(delta_channel_history_reads_checkpoints_put_with_changes, make)

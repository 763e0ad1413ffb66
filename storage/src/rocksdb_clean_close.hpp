#pragma once

// The mark a clean close leaves in a database's folder (DIR/CLEAN-CLOSE): the names and sizes
// of its write-ahead logs and its MANIFEST, and a hash of the MANIFEST. A log cut short at its
// end is what a crash leaves, and RocksDB cannot tell it from a log that lost records to
// damage; with the mark, a database that was closed cleanly must still have exactly what it
// had, so any difference is damage, reported rather than silently rolled back.

#include <string>

namespace superstep::storage {

/// Writes the mark of `dir`, whose database was just closed, durably (file, then folder).
/// Returns false, writing nothing, when that fails (the next open then treats the folder as
/// after a crash).
bool write_clean_close(const std::string& dir);

/// Removes the mark before a writable open changes the files, durably, so that a crash of
/// this process is not taken for damage.
void forget_clean_close(const std::string& dir);

/// Whether `dir` has the mark, after checking the files against it (false too when the mark
/// names another MANIFEST than CURRENT: the database was opened without us since). Throws
/// storage_error "DIR is damaged: ..." naming the file that differs from what was closed (or the
/// mark itself, when it is not whole).
[[nodiscard]] bool verify_clean_close(const std::string& dir);

}  // namespace superstep::storage

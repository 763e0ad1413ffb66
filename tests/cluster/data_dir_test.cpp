// The data folder of the `superstep` program: thread specs kept beside the database.
#include "ops/data_dir.hpp"

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/temp_dir.hpp"

using namespace superstep;

BOOST_AUTO_TEST_CASE(two_writers_of_one_threads_spec_both_succeed_and_leave_one_whole_spec) {
  // A head serves requests on threads of one process: two saving the same thread's spec at
  // once must not share a temporary file (one rename then finds it gone, or a mix of both).
  test::temp_dir dir("superstep-data-dir");
  ops::data_dir data(dir.str());
  const std::string a(4096, 'a'), b(4096, 'b');
  std::vector<std::string> failures(2);
  auto writer = [&](const std::string& text, std::string& failure) {
    try {
      for (int i = 0; i < 300; ++i) data.save_graph_text("t", text);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  };
  std::thread one(writer, std::cref(a), std::ref(failures[0]));
  std::thread two(writer, std::cref(b), std::ref(failures[1]));
  one.join();
  two.join();
  BOOST_TEST(failures[0] == "");
  BOOST_TEST(failures[1] == "");
  auto saved = data.saved_graph("t");
  BOOST_TEST_REQUIRE(saved.has_value());
  std::ifstream in(*saved);
  std::ostringstream text;
  text << in.rdbuf();
  BOOST_TEST((text.str() == a || text.str() == b));
  // No temporary file is left behind: the thread's spec, and the shared copy of each text
  // (graphs/shared/) it was linked to.
  const auto folder = std::filesystem::path(*saved).parent_path();
  auto files_in = [](const std::filesystem::path& p) {
    std::size_t files = 0;
    for (const auto& f : std::filesystem::directory_iterator(p)) files += f.is_regular_file();
    return files;
  };
  BOOST_TEST(files_in(folder) == 1u);
  BOOST_TEST(files_in(folder / "shared") == 2u);
}

BOOST_AUTO_TEST_CASE(threads_with_one_spec_text_share_one_copy_and_each_keeps_its_own_text) {
  test::temp_dir dir("superstep-data-dir");
  ops::data_dir data(dir.str());
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  data.save_graph_text("t1", "{\"spec\": 1}");
  data.save_graph_text("t2", "{\"spec\": 1}");
  const std::string one = *data.saved_graph("t1"), two = *data.saved_graph("t2");
  BOOST_TEST(std::filesystem::equivalent(one, two));  // one file, two names
  BOOST_TEST(std::filesystem::hard_link_count(one) == 3u);  // and the shared copy
  // A thread that takes another spec changes no other thread's.
  data.save_graph_text("t2", "{\"spec\": 2}");
  BOOST_TEST(read(one) == "{\"spec\": 1}");
  BOOST_TEST(read(*data.saved_graph("t2")) == "{\"spec\": 2}");
  data.forget_graph("t1");
  BOOST_TEST(!data.saved_graph("t1"));
  BOOST_TEST(read(*data.saved_graph("t2")) == "{\"spec\": 2}");
}

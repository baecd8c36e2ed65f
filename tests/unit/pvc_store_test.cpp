// PVC object store on a temporary directory: round trips, sorted listing without temp files,
// missing keys, size caps, and keys that try to leave the root.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "io/storage/pvc_store.hpp"
#include "tests/support/temp_dir.hpp"

using namespace br::storage;
namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct pvc_fixture {
  br::test::temp_dir tmp{"br-pvc"};
  fs::path root = tmp.path / "root";
  pvc_store store{root.string()};
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(pvc_store_suite, pvc_fixture)

BOOST_AUTO_TEST_CASE(put_get_list_remove) {
  BOOST_TEST(store.location() == root.string() + "/");
  // Nothing written yet: an empty listing, not an error.
  auto empty = store.list("");
  BOOST_REQUIRE(empty.ok());
  BOOST_TEST(empty->empty());

  std::string big(3 * 1024 * 1024 + 17, 'x');
  for (size_t i = 0; i < big.size(); i += 4099) big[i] = static_cast<char>('a' + i % 26);
  auto src = tmp.write("src.bin", big);
  BOOST_TEST_REQUIRE(store.put_file("binlogs/a/binlog.000001", src).ok());
  BOOST_TEST_REQUIRE(store.put_bytes("binlogs/manifest-a.json", "{}\n").ok());
  BOOST_TEST_REQUIRE(store.put_bytes("b1/backup.json", "{\"x\":1}").ok());
  // The layout on disk is the key.
  BOOST_TEST(read_all(root / "binlogs/a/binlog.000001") == big);
  BOOST_TEST(read_all(root / "binlogs/manifest-a.json") == "{}\n");

  auto all = store.list("");
  BOOST_REQUIRE(all.ok());
  BOOST_REQUIRE(all->size() == 3u);
  BOOST_TEST((*all)[0].key == "b1/backup.json");
  BOOST_TEST((*all)[1].key == "binlogs/a/binlog.000001");
  BOOST_TEST((*all)[1].size == big.size());
  BOOST_TEST((*all)[2].key == "binlogs/manifest-a.json");
  auto some = store.list("binlogs/a/");
  BOOST_REQUIRE(some.ok());
  BOOST_REQUIRE(some->size() == 1u);
  BOOST_TEST(some->front().key == "binlogs/a/binlog.000001");
  auto partial = store.list("binlogs/man");
  BOOST_REQUIRE(partial.ok());
  BOOST_TEST(partial->size() == 1u);
  BOOST_TEST(store.list("nothing/here/").ok());

  auto dst = tmp.path / "out.bin";
  BOOST_TEST_REQUIRE(store.get_file("binlogs/a/binlog.000001", dst).ok());
  BOOST_TEST(read_all(dst) == big);
  auto bytes = store.get_bytes("b1/backup.json", 100);
  BOOST_REQUIRE(bytes.ok());
  BOOST_TEST(*bytes == "{\"x\":1}");

  // Overwrite replaces whole.
  BOOST_TEST_REQUIRE(store.put_bytes("b1/backup.json", "2").ok());
  BOOST_TEST(*store.get_bytes("b1/backup.json", 100) == "2");

  BOOST_TEST(store.remove("b1/backup.json").ok());
  BOOST_TEST(store.remove("b1/backup.json").ok());  // missing = success
  BOOST_TEST(store.remove("never/was").ok());
  BOOST_TEST(store.list("")->size() == 2u);
}

BOOST_AUTO_TEST_CASE(missing_and_oversized) {
  auto g = store.get_bytes("no/such", 10);
  BOOST_TEST(!g.ok());
  BOOST_TEST(g.error().not_found);
  auto f = store.get_file("no/such", tmp.path / "x");
  BOOST_TEST(!f.ok());
  BOOST_TEST(f.error().not_found);
  BOOST_TEST(!fs::exists(tmp.path / "x"));

  BOOST_TEST_REQUIRE(store.put_bytes("k", std::string(101, 'z')).ok());
  auto capped = store.get_bytes("k", 100);
  BOOST_TEST(!capped.ok());
  BOOST_TEST(!capped.error().not_found);
  BOOST_TEST(capped.error().message.find("100") != std::string::npos, capped.error().message);
  BOOST_TEST(store.get_bytes("k", 101).ok());

  auto src_missing = store.put_file("k2", tmp.path / "no-such-file");
  BOOST_TEST(!src_missing.ok());
}

BOOST_AUTO_TEST_CASE(temp_files_are_not_listed) {
  BOOST_TEST_REQUIRE(store.put_bytes("d/real", "1").ok());
  std::ofstream(root / "d" / "real.br-tmp-1-1") << "partial";
  auto l = store.list("");
  BOOST_REQUIRE(l.ok());
  BOOST_REQUIRE(l->size() == 1u);
  BOOST_TEST(l->front().key == "d/real");
  // The temp name is reserved: nobody can write or read it as a key.
  BOOST_TEST(!store.put_bytes("d/x.br-tmp-1-2", "no").ok());
}

BOOST_AUTO_TEST_CASE(keys_never_leave_the_root) {
  fs::create_directories(root);
  auto outside = tmp.path / "outside";
  fs::create_directories(outside);
  std::ofstream(outside / "secret") << "outside";
  for (std::string bad : std::vector<std::string>{"", "/etc/passwd", "../outside/secret", "a/../../outside/secret", "a//b", "./a",
                          "a/.", "a/..", "a\\b", std::string("a\nb"), "a/"}) {
    BOOST_TEST_CONTEXT("key '" << bad << "'") {
      BOOST_TEST(!store.put_bytes(bad, "x").ok());
      BOOST_TEST(!store.get_bytes(bad, 100).ok());
      BOOST_TEST(!store.remove(bad).ok());
      BOOST_TEST(!store.get_file(bad, tmp.path / "copy").ok());
    }
  }
  // A symlink inside the root that points outside is refused too.
  fs::create_directory_symlink(outside, root / "link");
  BOOST_TEST(!store.get_bytes("link/secret", 100).ok());
  BOOST_TEST(!store.put_bytes("link/new", "x").ok());
  BOOST_TEST(!store.remove("link/secret").ok());
  BOOST_TEST(!fs::exists(outside / "new"));
  BOOST_TEST(fs::exists(outside / "secret"));
  // And the listing does not follow it.
  auto l = store.list("");
  BOOST_REQUIRE(l.ok());
  BOOST_TEST(l->empty());
}

BOOST_AUTO_TEST_CASE(valid_key_table) {
  struct row {
    std::string key;
    bool ok;
  };
  std::vector<row> rows = {{"a", true},           {"a/b/c.json", true}, {"binlogs/a/binlog.000001", true},
                           {"a b/c", true},       {"", false},          {"/a", false},
                           {"a/", false},         {"a//b", false},      {".", false},
                           {"..", false},         {"a/../b", false},    {"a/./b", false},
                           {"a\\b", false},       {"a\x01" "b", false}, {std::string(1025, 'a'), false},
                           {std::string(1024, 'a'), true}};
  for (const auto& r : rows) BOOST_TEST(valid_key(r.key) == r.ok, "key '" << r.key << "'");
}

BOOST_AUTO_TEST_SUITE_END()

// Table tests of signed authority (actors/common/authority.hpp, io/crypto/ed25519.hpp) and of keys
// directories (actors/common/key_dir.hpp): what verifies, what does not, and where keys live.
#include <boost/test/unit_test.hpp>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "actors/common/authority.hpp"
#include "actors/common/key_dir.hpp"
#include "io/crypto/ed25519.hpp"

using namespace br;
namespace crypto = br::crypto;
namespace fsys = std::filesystem;

namespace {

crypto::signing_key key_of(char fill) {
  auto k = crypto::key_from_seed(std::string(32, fill));
  BOOST_REQUIRE(k.has_value());
  return *k;
}

const std::string group = "ns/g";

topology_view view(uint64_t epoch, const std::string& active, const std::string& deposing = "") {
  topology_view v;
  v.epoch = epoch;
  v.active_site = active;
  v.deposing = deposing;
  v.observed_at_ms = 1714564800000;
  return v;
}

/// `sig` with its last hex digit changed.
std::string flip_last_digit(std::string sig) {
  sig.back() = sig.back() == '0' ? '1' : '0';
  return sig;
}

/// A fresh private directory under the system temp dir, removed at scope exit.
struct temp_dir {
  std::string path;
  temp_dir() {
    std::string tmpl = (fsys::temp_directory_path() / "br-keydir-XXXXXX").string();
    BOOST_REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~temp_dir() {
    std::error_code ec;
    fsys::remove_all(path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

unsigned mode_of(const std::string& path) {
  struct stat st {};
  BOOST_REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 0777;
}

/// A P-256 key as PEM (private or public half), made with OpenSSL: not an Ed25519 key.
std::string ec_pem(bool private_half) {
  EVP_PKEY* k = EVP_EC_gen("P-256");
  BOOST_REQUIRE(k != nullptr);
  BIO* b = BIO_new(BIO_s_mem());
  int ok = private_half ? PEM_write_bio_PrivateKey(b, k, nullptr, nullptr, 0, nullptr, nullptr)
                        : PEM_write_bio_PUBKEY(b, k);
  char* data = nullptr;
  long n = BIO_get_mem_data(b, &data);
  std::string out = ok == 1 && n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
  BIO_free(b);
  EVP_PKEY_free(k);
  BOOST_REQUIRE(!out.empty());
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(authority_crypto)

BOOST_AUTO_TEST_CASE(rfc8032_test_vector_1) {
  // RFC 8032 section 7.1, TEST 1: the primitive is Ed25519 itself, not something like it.
  auto seed = crypto::from_hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
  BOOST_REQUIRE(seed.has_value());
  auto k = crypto::key_from_seed(*seed);
  BOOST_REQUIRE(k.has_value());
  BOOST_TEST(crypto::to_hex(k->pub.raw) ==
             "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  auto sig = crypto::sign(*k, "");
  BOOST_TEST(crypto::to_hex(sig) ==
             "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e"
             "39701cf9b46bd25bf5f0595bbe24655141438e7a100b");
  BOOST_TEST(crypto::verify(k->pub, "", sig));
  BOOST_TEST(!crypto::verify(k->pub, "x", sig));
}

BOOST_AUTO_TEST_CASE(key_from_seed_is_deterministic) {
  auto a = key_of('a');
  auto a2 = key_of('a');
  auto b = key_of('b');
  BOOST_TEST(a.seed == std::string(32, 'a'));
  BOOST_TEST(a.pub.raw.size() == 32u);
  BOOST_TEST(a.pub.raw == a2.pub.raw);
  BOOST_TEST(a.pub.id == a2.pub.id);
  BOOST_TEST(a.pub.id.size() == 16u);
  BOOST_TEST(a.pub.id == crypto::key_id(a.pub.raw));
  BOOST_TEST(a.pub.raw != b.pub.raw);
  BOOST_TEST(a.pub.id != b.pub.id);
  // Ed25519 is deterministic: the same key signs the same message the same way.
  BOOST_TEST(crypto::to_hex(crypto::sign(a, "m")) == crypto::to_hex(crypto::sign(a2, "m")));
  BOOST_TEST(crypto::sign(a, "m").size() == 64u);
  // Only 32-byte seeds.
  BOOST_TEST(!crypto::key_from_seed(std::string(31, 'a')).has_value());
  BOOST_TEST(!crypto::key_from_seed(std::string(33, 'a')).has_value());
  BOOST_TEST(!crypto::key_from_seed("").has_value());
  // generate_key: a fresh key each time.
  auto g1 = crypto::generate_key();
  auto g2 = crypto::generate_key();
  BOOST_REQUIRE(g1.has_value());
  BOOST_REQUIRE(g2.has_value());
  BOOST_TEST(g1->pub.id != g2->pub.id);
}

BOOST_AUTO_TEST_CASE(hex_round_trip) {
  BOOST_TEST(crypto::to_hex(std::string("\x00\x01\xab\xff", 4)) == "0001abff");
  auto back = crypto::from_hex("0001ABff");
  BOOST_REQUIRE(back.has_value());
  BOOST_TEST(*back == std::string("\x00\x01\xab\xff", 4));
  BOOST_TEST(!crypto::from_hex("abc").has_value());
  BOOST_TEST(!crypto::from_hex("zz").has_value());
}

BOOST_AUTO_TEST_CASE(pem_round_trip) {
  auto k = key_of('k');
  auto pem = crypto::private_pem(k);
  BOOST_TEST(pem.find("-----BEGIN PRIVATE KEY-----") == 0u);
  auto loaded = crypto::signing_key_from_pem(pem);
  BOOST_REQUIRE(loaded.key.has_value());
  BOOST_TEST(loaded.error.empty());
  BOOST_TEST(loaded.key->seed == k.seed);
  BOOST_TEST(loaded.key->pub.id == k.pub.id);

  auto other = key_of('o');
  auto pub_pem = crypto::public_pem(k.pub);
  BOOST_TEST(pub_pem.find("-----BEGIN PUBLIC KEY-----") == 0u);
  auto two = crypto::verify_keys_from_pem(pub_pem + crypto::public_pem(other.pub));
  BOOST_TEST(two.error.empty());
  BOOST_REQUIRE(two.keys.size() == 2u);
  BOOST_TEST(two.keys[0].id == k.pub.id);
  BOOST_TEST(two.keys[0].raw == k.pub.raw);
  BOOST_TEST(two.keys[1].id == other.pub.id);
  // What loads verifies what the key signs.
  BOOST_TEST(crypto::verify(two.keys[0], "m", crypto::sign(*loaded.key, "m")));
  BOOST_TEST(!crypto::verify(two.keys[1], "m", crypto::sign(*loaded.key, "m")));
}

BOOST_AUTO_TEST_CASE(pem_errors) {
  struct row {
    const char* name;
    std::string text;
    const char* private_error;  ///< nullptr = loads
    const char* public_error;
  };
  auto ed_pub = crypto::public_pem(key_of('k').pub);
  std::vector<row> rows = {
      {"garbage", "not a PEM at all", "no PEM private key", "no PEM public key"},
      {"empty", "", "no PEM private key", "no PEM public key"},
      {"P-256 private key", ec_pem(true), "not Ed25519", "no PEM public key"},
      {"P-256 public key", ec_pem(false), "no PEM private key", "public key 1 is not Ed25519"},
      {"Ed25519 then P-256 public key", ed_pub + ec_pem(false), "no PEM private key",
       "public key 2 is not Ed25519"},
      {"truncated Ed25519 public key", ed_pub.substr(0, ed_pub.size() / 2), "no PEM private key",
       "no PEM public key"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto p = crypto::signing_key_from_pem(r.text);
      BOOST_TEST(!p.key.has_value());
      BOOST_TEST(p.error.find(r.private_error) != std::string::npos, p.error);
      auto v = crypto::verify_keys_from_pem(r.text);
      BOOST_TEST(v.keys.empty());
      BOOST_TEST(v.error.find(r.public_error) != std::string::npos, v.error);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(authority_views)

BOOST_AUTO_TEST_CASE(a_signed_view_binds_epoch_site_deposing_and_group) {
  auto op = key_of('o');
  auto attacker = key_of('x');
  const std::vector<crypto::verify_key> accepted = {op.pub};
  const auto signed_v = auth::sign_view(op, group, view(7, "", "iad"));
  BOOST_TEST(signed_v.signature.rfind(op.pub.id + ":", 0) == 0u, signed_v.signature);
  BOOST_TEST(signed_v.signature.size() == op.pub.id.size() + 1 + 128);

  struct row {
    const char* name;
    std::function<void(topology_view&)> change;
    std::string group;
    bool verifies;
  };
  std::vector<row> rows = {
      {"as signed", [](topology_view&) {}, group, true},
      {"observedAt is informational", [](topology_view& v) { v.observed_at_ms += 5000; }, group,
       true},
      {"epoch raised", [](topology_view& v) { v.epoch = 8; }, group, false},
      {"epoch lowered", [](topology_view& v) { v.epoch = 6; }, group, false},
      {"activeSite set", [](topology_view& v) { v.active_site = "pdx"; }, group, false},
      {"deposing changed", [](topology_view& v) { v.deposing = "pdx"; }, group, false},
      {"deposing cleared", [](topology_view& v) { v.deposing.clear(); }, group, false},
      {"another group", [](topology_view&) {}, "ns/other", false},
      {"same name in another namespace", [](topology_view&) {}, "other/g", false},
      {"signature removed", [](topology_view& v) { v.signature.clear(); }, group, false},
      {"tampered hex digit", [](topology_view& v) { v.signature = flip_last_digit(v.signature); },
       group, false},
      {"garbage kid:xx", [&](topology_view& v) { v.signature = op.pub.id + ":xx"; }, group, false},
      {"no colon", [&](topology_view& v) { v.signature = v.signature.substr(op.pub.id.size() + 1); },
       group, false},
      {"another key id", [&](topology_view& v) {
         v.signature = attacker.pub.id + v.signature.substr(op.pub.id.size());
       }, group, false},
      {"signature truncated", [](topology_view& v) { v.signature.resize(v.signature.size() - 2); },
       group, false},
      {"signed by an attacker's key",
       [&](topology_view& v) { v = auth::sign_view(attacker, group, v); }, group, false},
      {"attacker's signature under the operator's key id",
       [&](topology_view& v) {
         auto forged = auth::sign_view(attacker, group, v).signature;
         v.signature = op.pub.id + forged.substr(attacker.pub.id.size());
       },
       group, false},
  };
  for (const auto& r : rows) {
    auto v = signed_v;
    r.change(v);
    BOOST_TEST(auth::view_verifies(accepted, r.group, v) == r.verifies, r.name);
  }
  BOOST_TEST(!auth::view_verifies({}, group, signed_v));
}

BOOST_AUTO_TEST_CASE(the_statement_cannot_be_shifted_between_fields) {
  // Length-prefixed fields: moving characters between activeSite and deposing changes the bytes.
  auto a = view(3, "ab", "c");
  auto b = view(3, "a", "bc");
  BOOST_TEST(auth::view_statement(group, a) != auth::view_statement(group, b));
  auto op = key_of('o');
  auto sa = auth::sign_view(op, group, a);
  b.signature = sa.signature;
  BOOST_TEST(!auth::view_verifies({op.pub}, group, b));
}

BOOST_AUTO_TEST_CASE(two_keys_accepted_during_a_rollover) {
  auto old_key = key_of('1');
  auto new_key = key_of('2');
  auto stranger = key_of('3');
  struct row {
    const char* name;
    const crypto::signing_key* signer;
    std::vector<crypto::verify_key> accepted;
    bool verifies;
  };
  std::vector<row> rows = {
      {"old key, both accepted", &old_key, {old_key.pub, new_key.pub}, true},
      {"new key, both accepted", &new_key, {old_key.pub, new_key.pub}, true},
      {"new key, new listed first", &new_key, {new_key.pub, old_key.pub}, true},
      {"a third key, both accepted", &stranger, {old_key.pub, new_key.pub}, false},
      {"old key after the old one was dropped", &old_key, {new_key.pub}, false},
      {"new key before it was added", &new_key, {old_key.pub}, false},
  };
  for (const auto& r : rows) {
    auto v = auth::sign_view(*r.signer, group, view(12, "pdx"));
    BOOST_TEST(auth::view_verifies(r.accepted, group, v) == r.verifies, r.name);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(authority_bodies)

BOOST_AUTO_TEST_CASE(purposes_are_not_interchangeable) {
  auto site = key_of('s');
  const std::string body = R"({"ack":true,"epoch":7,"site":"iad","nonce":"00112233445566778899aabbccddeeff"})";
  const auth::purpose all[] = {auth::purpose::operator_answer, auth::purpose::peer_answer,
                               auth::purpose::ack, auth::purpose::report};
  for (auto signed_as : all)
    for (auto checked_as : all) {
      auto header = auth::sign_body(site, signed_as, group, body);
      BOOST_TEST(auth::body_verifies({site.pub}, checked_as, group, body, header) ==
                     (signed_as == checked_as),
                 "signed as " << auth::to_string(signed_as) << ", checked as "
                              << auth::to_string(checked_as));
    }
  BOOST_TEST(auth::to_string(auth::purpose::operator_answer) == "operator-answer");
  BOOST_TEST(auth::to_string(auth::purpose::peer_answer) == "peer-answer");
  BOOST_TEST(auth::to_string(auth::purpose::ack) == "ack");
  BOOST_TEST(auth::to_string(auth::purpose::report) == "report");
}

BOOST_AUTO_TEST_CASE(a_body_signature_binds_group_body_and_key) {
  auto iad = key_of('i');
  auto pdx = key_of('p');
  const std::string body = R"({"ack":true,"epoch":7,"site":"iad"})";
  const auto header = auth::sign_body(iad, auth::purpose::ack, group, body);
  BOOST_TEST(header.rfind(iad.pub.id + ":", 0) == 0u, header);
  struct row {
    const char* name;
    std::vector<crypto::verify_key> keys;
    std::string group;
    std::string body;
    std::string header;
    bool verifies;
  };
  std::vector<row> rows = {
      {"as signed", {iad.pub}, group, body, header, true},
      {"among several keys", {pdx.pub, iad.pub}, group, body, header, true},
      {"another group", {iad.pub}, "ns/other", body, header, false},
      {"body changed", {iad.pub}, group, R"({"ack":true,"epoch":8,"site":"iad"})", header, false},
      {"body with a trailing space", {iad.pub}, group, body + " ", header, false},
      {"another site's key", {pdx.pub}, group, body, header, false},
      {"no keys", {}, group, body, header, false},
      {"no header", {iad.pub}, group, body, "", false},
      {"tampered hex", {iad.pub}, group, body, flip_last_digit(header), false},
      {"garbage kid:xx", {iad.pub}, group, body, iad.pub.id + ":xx", false},
      {"odd-length hex", {iad.pub}, group, body, header.substr(0, header.size() - 1), false},
      {"non-hex signature", {iad.pub}, group, body,
       iad.pub.id + ":" + std::string(128, 'g'), false},
      {"oversized header", {iad.pub}, group, body, header + std::string(200, '0'), false},
      {"signed by pdx, named as iad", {iad.pub}, group, body,
       iad.pub.id + auth::sign_body(pdx, auth::purpose::ack, group, body).substr(pdx.pub.id.size()),
       false},
  };
  for (const auto& r : rows)
    BOOST_TEST(auth::body_verifies(r.keys, auth::purpose::ack, r.group, r.body, r.header) ==
                   r.verifies,
               r.name);
}

BOOST_AUTO_TEST_CASE(nonce_shapes) {
  struct row {
    const char* name;
    std::string nonce;
    bool ok;
  };
  std::vector<row> rows = {
      {"empty", "", false},
      {"15 hex digits", std::string(15, 'a'), false},
      {"16 hex digits", std::string(16, 'a'), true},
      {"32 hex digits", "0123456789abcdef0123456789abcdef", true},
      {"64 hex digits", std::string(64, '9'), true},
      {"65 hex digits", std::string(65, '9'), false},
      {"upper-case hex", "0123456789ABCDEF", false},
      {"one upper-case digit", "0123456789abcdeF", false},
      {"non-hex letter", "0123456789abcdeg", false},
      {"a space", "0123456789abcde ", false},
      {"a NUL byte", std::string("0123456789abcde\0", 16), false},
      {"query syntax", "0123456789abcdef&x=1", false},
  };
  for (const auto& r : rows) BOOST_TEST(auth::nonce_well_formed(r.nonce) == r.ok, r.name);
  auto a = auth::new_nonce();
  auto b = auth::new_nonce();
  BOOST_TEST(a.size() == 32u);
  BOOST_TEST(auth::nonce_well_formed(a));
  BOOST_TEST(a != b);
}

BOOST_AUTO_TEST_CASE(group_key_and_key_rings) {
  BOOST_TEST(auth::group_key("prod", "orders") == "prod/orders");
  auto op = key_of('o');
  auto iad = key_of('i');
  auth::key_ring ring;
  ring.signer = op;
  ring.operator_keys = {op.pub};
  ring.site_keys["iad"] = {iad.pub};
  BOOST_REQUIRE(ring.keys_of_site("iad").size() == 1u);
  BOOST_TEST(ring.keys_of_site("iad")[0].id == iad.pub.id);
  BOOST_TEST(ring.keys_of_site("pdx").empty());

  auto a = std::make_shared<const auth::key_ring>(ring);
  auto same = std::make_shared<const auth::key_ring>(ring);
  auto rotated_ring = ring;
  rotated_ring.operator_keys.push_back(key_of('n').pub);
  auto other_signer_ring = ring;
  other_signer_ring.signer = key_of('n');
  auto other_site_ring = ring;
  other_site_ring.site_keys["iad"] = {key_of('n').pub};
  auto more_sites_ring = ring;
  more_sites_ring.site_keys["pdx"] = {key_of('p').pub};
  BOOST_TEST(auth::same_keys(a, same));
  BOOST_TEST(auth::same_keys(nullptr, nullptr));
  BOOST_TEST(!auth::same_keys(a, nullptr));
  BOOST_TEST(!auth::same_keys(a, std::make_shared<const auth::key_ring>(rotated_ring)));
  BOOST_TEST(!auth::same_keys(a, std::make_shared<const auth::key_ring>(other_signer_ring)));
  BOOST_TEST(!auth::same_keys(a, std::make_shared<const auth::key_ring>(other_site_ring)));
  BOOST_TEST(!auth::same_keys(a, std::make_shared<const auth::key_ring>(more_sites_ring)));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(authority_key_dir)

BOOST_AUTO_TEST_CASE(written_keys_load_for_the_operator_and_each_sidecar) {
  temp_dir d;
  BOOST_REQUIRE(auth::write_key_dir(d.path, {"iad", "pdx"}) == "");
  for (const char* f : {"operator.key", "operator.pub", "site-iad.key", "site-iad.pub",
                        "site-pdx.key", "site-pdx.pub"})
    BOOST_TEST(fsys::exists(d.path + "/" + f), f);

  auto op = auth::load_operator_keys(d.path, {"iad", "pdx"});
  BOOST_REQUIRE_MESSAGE(op.ring.has_value(), op.error);
  BOOST_TEST(op.error.empty());
  BOOST_REQUIRE(op.ring->signer.has_value());
  BOOST_REQUIRE(op.ring->operator_keys.size() == 1u);
  BOOST_TEST(op.ring->operator_keys[0].id == op.ring->signer->pub.id);
  BOOST_TEST(op.ring->site_keys.size() == 2u);
  BOOST_REQUIRE(op.ring->keys_of_site("iad").size() == 1u);
  BOOST_REQUIRE(op.ring->keys_of_site("pdx").size() == 1u);

  auto iad = auth::load_sidecar_keys(d.path, "iad");
  BOOST_REQUIRE_MESSAGE(iad.ring.has_value(), iad.error);
  auto pdx = auth::load_sidecar_keys(d.path, "pdx");
  BOOST_REQUIRE_MESSAGE(pdx.ring.has_value(), pdx.error);
  BOOST_REQUIRE(iad.ring->signer.has_value());
  BOOST_REQUIRE(pdx.ring->signer.has_value());
  BOOST_REQUIRE(iad.ring->operator_keys.size() == 1u);
  BOOST_TEST(iad.ring->operator_keys[0].id == op.ring->signer->pub.id);
  // Each site holds a key of its own; the operator knows each site's public half.
  BOOST_TEST(iad.ring->signer->pub.id != pdx.ring->signer->pub.id);
  BOOST_TEST(iad.ring->signer->pub.id != op.ring->signer->pub.id);
  BOOST_TEST(op.ring->keys_of_site("iad")[0].id == iad.ring->signer->pub.id);
  BOOST_TEST(op.ring->keys_of_site("pdx")[0].id == pdx.ring->signer->pub.id);
  // A sidecar knows its peers' public keys.
  BOOST_REQUIRE(iad.ring->keys_of_site("pdx").size() == 1u);
  BOOST_TEST(iad.ring->keys_of_site("pdx")[0].id == pdx.ring->signer->pub.id);

  // End to end: the operator's view verifies at the sidecar; iad's ack verifies as iad only.
  auto v = auth::sign_view(*op.ring->signer, group, view(3, "iad"));
  BOOST_TEST(auth::view_verifies(iad.ring->operator_keys, group, v));
  auto h = auth::sign_body(*iad.ring->signer, auth::purpose::ack, group, "{}");
  BOOST_TEST(auth::body_verifies(op.ring->keys_of_site("iad"), auth::purpose::ack, group, "{}", h));
  BOOST_TEST(!auth::body_verifies(op.ring->keys_of_site("pdx"), auth::purpose::ack, group, "{}", h));
}

BOOST_AUTO_TEST_CASE(private_keys_are_0600_public_keys_0644) {
  temp_dir d;
  BOOST_REQUIRE(auth::write_key_dir(d.path, {"iad"}) == "");
  BOOST_TEST(mode_of(d.path + "/operator.key") == 0600u);
  BOOST_TEST(mode_of(d.path + "/site-iad.key") == 0600u);
  BOOST_TEST(mode_of(d.path + "/operator.pub") == 0644u);
  BOOST_TEST(mode_of(d.path + "/site-iad.pub") == 0644u);
  // No temporary file is left behind.
  for (const auto& e : fsys::directory_iterator(d.path))
    BOOST_TEST(e.path().extension() != ".tmp", e.path().string());
}

BOOST_AUTO_TEST_CASE(a_second_write_keeps_existing_keys) {
  temp_dir d;
  BOOST_REQUIRE(auth::write_key_dir(d.path, {"iad"}) == "");
  auto op_key = read_file(d.path + "/operator.key");
  auto op_pub = read_file(d.path + "/operator.pub");
  auto iad_key = read_file(d.path + "/site-iad.key");
  BOOST_REQUIRE(!op_key.empty());
  // A site added later gets its key; the existing ones stay.
  BOOST_REQUIRE(auth::write_key_dir(d.path, {"iad", "sfo"}) == "");
  BOOST_TEST(read_file(d.path + "/operator.key") == op_key);
  BOOST_TEST(read_file(d.path + "/operator.pub") == op_pub);
  BOOST_TEST(read_file(d.path + "/site-iad.key") == iad_key);
  BOOST_TEST(fsys::exists(d.path + "/site-sfo.key"));
  BOOST_TEST(fsys::exists(d.path + "/site-sfo.pub"));
  // A lost public half is rewritten from the kept private key.
  auto iad_before = auth::load_sidecar_keys(d.path, "iad");
  BOOST_REQUIRE(iad_before.ring.has_value());
  fsys::remove(d.path + "/site-iad.pub");
  BOOST_REQUIRE(auth::write_key_dir(d.path, {"iad", "sfo"}) == "");
  BOOST_TEST(read_file(d.path + "/site-iad.key") == iad_key);
  auto op = auth::load_operator_keys(d.path, {"iad", "sfo"});
  BOOST_REQUIRE_MESSAGE(op.ring.has_value(), op.error);
  BOOST_REQUIRE(op.ring->keys_of_site("iad").size() == 1u);
  BOOST_TEST(op.ring->keys_of_site("iad")[0].id == iad_before.ring->signer->pub.id);
}

BOOST_AUTO_TEST_CASE(load_errors_name_the_file) {
  struct row {
    const char* name;
    std::function<void(const std::string&)> damage;
    bool for_operator;  ///< load_operator_keys(dir, {iad, pdx}) or load_sidecar_keys(dir, iad)
    const char* needle;
  };
  std::vector<row> rows = {
      {"operator: site-pdx.pub missing",
       [](const std::string& d) { fsys::remove(d + "/site-pdx.pub"); }, true, "site-pdx.pub"},
      {"operator: operator.key missing",
       [](const std::string& d) { fsys::remove(d + "/operator.key"); }, true, "operator.key"},
      {"operator: operator.key is a public key",
       [](const std::string& d) { fsys::copy_file(d + "/operator.pub", d + "/operator.key",
                                                  fsys::copy_options::overwrite_existing); },
       true, "operator.key"},
      {"operator: site-iad.pub is garbage",
       [](const std::string& d) { write_file(d + "/site-iad.pub", "garbage"); }, true,
       "site-iad.pub"},
      {"operator: operator.pub without operator.key's public half",
       [](const std::string& d) {
         write_file(d + "/operator.pub", crypto::public_pem(key_of('z').pub));
       },
       true, "operator.pub: does not contain the public half of operator.key"},
      {"sidecar: operator.pub missing",
       [](const std::string& d) { fsys::remove(d + "/operator.pub"); }, false, "operator.pub"},
      {"sidecar: its own site key missing",
       [](const std::string& d) { fsys::remove(d + "/site-iad.key"); }, false, "site-iad.key"},
      {"sidecar: a peer's public key is garbage",
       [](const std::string& d) { write_file(d + "/site-pdx.pub", "garbage"); }, false,
       "site-pdx.pub"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      temp_dir d;
      BOOST_REQUIRE(auth::write_key_dir(d.path, {"iad", "pdx"}) == "");
      r.damage(d.path);
      auto l = r.for_operator ? auth::load_operator_keys(d.path, {"iad", "pdx"})
                              : auth::load_sidecar_keys(d.path, "iad");
      BOOST_TEST(!l.ring.has_value());
      BOOST_TEST(l.error.find(r.needle) != std::string::npos, l.error);
    }
  }
  // A site the directory has no key for.
  temp_dir d;
  BOOST_REQUIRE(auth::write_key_dir(d.path, {"iad"}) == "");
  auto op = auth::load_operator_keys(d.path, {"iad", "sfo"});
  BOOST_TEST(!op.ring.has_value());
  BOOST_TEST(op.error.find("site-sfo.pub") != std::string::npos, op.error);
  auto sc = auth::load_sidecar_keys(d.path, "sfo");
  BOOST_TEST(!sc.ring.has_value());
  BOOST_TEST(sc.error.find("site-sfo.key") != std::string::npos, sc.error);
}

BOOST_AUTO_TEST_CASE(operator_pub_rotation) {
  temp_dir d;
  BOOST_REQUIRE(auth::write_key_dir(d.path, {"iad"}) == "");
  auto own = auth::load_operator_keys(d.path, {"iad"});
  BOOST_REQUIRE(own.ring.has_value());
  auto next = key_of('n');
  // Rollover: the new key's public half next to the old one; both are accepted.
  write_file(d.path + "/operator.pub",
             read_file(d.path + "/operator.pub") + crypto::public_pem(next.pub));
  auto op = auth::load_operator_keys(d.path, {"iad"});
  BOOST_REQUIRE_MESSAGE(op.ring.has_value(), op.error);
  BOOST_REQUIRE(op.ring->operator_keys.size() == 2u);
  BOOST_TEST(op.ring->operator_keys[1].id == next.pub.id);
  auto sc = auth::load_sidecar_keys(d.path, "iad");
  BOOST_REQUIRE_MESSAGE(sc.ring.has_value(), sc.error);
  BOOST_REQUIRE(sc.ring->operator_keys.size() == 2u);
  BOOST_TEST(auth::view_verifies(sc.ring->operator_keys, group,
                                 auth::sign_view(*own.ring->signer, group, view(1, "iad"))));
  BOOST_TEST(auth::view_verifies(sc.ring->operator_keys, group,
                                 auth::sign_view(next, group, view(2, "iad"))));
  // Without operator.pub the operator accepts its own key only.
  fsys::remove(d.path + "/operator.pub");
  auto alone = auth::load_operator_keys(d.path, {"iad"});
  BOOST_REQUIRE_MESSAGE(alone.ring.has_value(), alone.error);
  BOOST_REQUIRE(alone.ring->operator_keys.size() == 1u);
  BOOST_TEST(alone.ring->operator_keys[0].id == own.ring->signer->pub.id);
}

BOOST_AUTO_TEST_SUITE_END()

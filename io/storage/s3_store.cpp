// S3 backend: not built yet (step 2 of issue 21's storage work); every call reports it.
#include "io/storage/s3_store.hpp"

namespace br::storage {

struct s3_store::impl {
  storage_config cfg;
};

namespace {
store_error unavailable() { return store_error{"S3 storage is not implemented yet in this build", false, false}; }
}  // namespace

s3_store::s3_store(storage_config cfg) : impl_(std::make_unique<impl>(impl{std::move(cfg)})) {}
s3_store::~s3_store() = default;
std::string s3_store::location() const { return impl_->cfg.describe(); }
store_status s3_store::put_file(const std::string&, const std::filesystem::path&) { return unavailable(); }
store_status s3_store::put_bytes(const std::string&, std::string_view) { return unavailable(); }
store_status s3_store::get_file(const std::string&, const std::filesystem::path&) { return unavailable(); }
store_result<std::string> s3_store::get_bytes(const std::string&, uint64_t) { return unavailable(); }
store_result<std::vector<object_info>> s3_store::list(const std::string&) { return unavailable(); }
store_status s3_store::remove(const std::string&) { return unavailable(); }

}  // namespace br::storage

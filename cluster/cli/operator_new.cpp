// The program's operator new and delete. mimalloc's own operator new aborts the process when
// an allocation fails (Debian's libmimalloc never calls the new_handler), with no word of what
// ran out; these throw std::bad_alloc instead, through the new_handler (main.cpp's names the
// cause), so that the task or step that asked for the memory fails its run with an error and
// the process goes on. The memory still comes from malloc (mimalloc, when it replaces malloc).
#include <cstdlib>
#include <new>

namespace {

// Asks `get` for the memory until it gives some, calling the new_handler in between (which
// throws, main.cpp): operator new's contract.
template <class Get>
void* with_handler(Get get) {
  for (;;) {
    if (void* p = get()) return p;
    std::new_handler h = std::get_new_handler();
    if (!h) throw std::bad_alloc();
    h();
  }
}

void* allocate(std::size_t n) {
  return with_handler([n] { return std::malloc(n == 0 ? 1 : n); });
}

void* allocate_aligned(std::size_t n, std::align_val_t al) {
  const auto a = static_cast<std::size_t>(al);
  const std::size_t size = n == 0 ? a : (n + a - 1) / a * a;  // aligned_alloc's rule
  return with_handler([a, size] { return std::aligned_alloc(a, size); });
}

// The nothrow forms: the same, null instead of the exception.
template <class Allocate>
void* or_null(Allocate allocate) noexcept {
  try {
    return allocate();
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return or_null([n] { return allocate(n); });
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return or_null([n] { return allocate(n); });
}
void* operator new(std::size_t n, std::align_val_t al) { return allocate_aligned(n, al); }
void* operator new[](std::size_t n, std::align_val_t al) { return allocate_aligned(n, al); }
void* operator new(std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return or_null([n, al] { return allocate_aligned(n, al); });
}
void* operator new[](std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return or_null([n, al] { return allocate_aligned(n, al); });
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

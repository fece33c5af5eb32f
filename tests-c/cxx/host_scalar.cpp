// The official dnnl.hpp's memory over a host scalar (issue 15), on our library and, in
// the @ref run, on Intel's: memory(desc::host_scalar(f32), value) copies the value;
// get_engine() is an empty engine (the C query writes NULL); map_data<float>() points
// at the value itself (a write through it is what get_host_scalar_value reads, a set
// value shows through it); get_data_handle() and set_data_handle() throw
// dnnl::error with dnnl_invalid_arguments; get/set_host_scalar_value and the value
// constructor throw invalid_arguments for a type of another size; get_desc() is a
// host_scalar descriptor of the data type's size.
#include <cstdio>
#include <cstdlib>

#include "oneapi/dnnl/dnnl.hpp"

#define EXPECT(cond)                                                        \
    do {                                                                    \
        if (!(cond)) {                                                      \
            std::fprintf(stderr, "%s:%d: expectation failed: %s\n", __FILE__, \
                    __LINE__, #cond);                                       \
            std::exit(1);                                                   \
        }                                                                   \
    } while (0)

// Runs `body`, which must throw dnnl::error with `status`.
template <typename F>
static void expect_error(const char *what, dnnl_status_t status, F body) {
    try {
        body();
    } catch (const dnnl::error &e) {
        if (e.status != status) {
            std::fprintf(stderr, "%s: status %d, expected %d\n", what, (int)e.status,
                    (int)status);
            std::exit(1);
        }
        std::printf("%s: refused (%d)\n", what, (int)e.status);
        return;
    }
    std::fprintf(stderr, "%s: did not throw\n", what);
    std::exit(1);
}

int main() {
    using dnnl::memory;
    const memory::desc md = memory::desc::host_scalar(memory::data_type::f32);
    float value = 1.5f;
    const memory m(md, value);
    value = 0.f; // the memory holds its own copy

    EXPECT(!m.get_engine());
    EXPECT(m.get_host_scalar_value<float>() == 1.5f);
    const memory::desc got = m.get_desc();
    EXPECT(got.get_format_kind() == memory::format_kind::host_scalar);
    EXPECT(got.get_data_type() == memory::data_type::f32);
    EXPECT(got.get_size() == sizeof(float));

    float *p = m.map_data<float>();
    EXPECT(p != nullptr && *p == 1.5f);
    *p = 4.f;
    m.unmap_data(p);
    EXPECT(m.get_host_scalar_value<float>() == 4.f);
    m.set_host_scalar_value(2.f);
    float *q = m.map_data<float>();
    EXPECT(q == p && *q == 2.f);
    m.unmap_data(q);

    expect_error("get_data_handle", dnnl_invalid_arguments, [&] { m.get_data_handle(); });
    float elsewhere = 0.f;
    expect_error("set_data_handle", dnnl_invalid_arguments,
            [&] { m.set_data_handle(&elsewhere); });
    expect_error("get_host_scalar_value<double>", dnnl_invalid_arguments,
            [&] { m.get_host_scalar_value<double>(); });
    expect_error("set_host_scalar_value(double)", dnnl_invalid_arguments,
            [&] { m.set_host_scalar_value(1.0); });
    expect_error("memory(f32 desc, double)", dnnl_invalid_arguments,
            [&] { memory bad(md, 1.0); });
    EXPECT(m.get_host_scalar_value<float>() == 2.f);

    // An s64 scalar: 8 bytes through the same paths.
    const memory s64(memory::desc::host_scalar(memory::data_type::s64), (long long)-1234567890123LL);
    EXPECT(s64.get_host_scalar_value<long long>() == -1234567890123LL);
    long long *v = s64.map_data<long long>();
    EXPECT(*v == -1234567890123LL);
    s64.unmap_data(v);
    std::printf("C++ host scalar memory: ok\n");
    return 0;
}


/// The commit a build comes from is known only to the library itself, so that
/// moving between commits does not change a public header: ask dnnl_version().
#define DNNL_VERSION_HASH "N/A"

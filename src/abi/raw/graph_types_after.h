
/// A dimension of a graph logical tensor that is not known yet.
#define DNNL_GRAPH_UNKNOWN_DIM INT64_MIN

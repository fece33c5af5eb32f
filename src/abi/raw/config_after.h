
// This library always contains the graph API.
#define ONEDNN_BUILD_GRAPH

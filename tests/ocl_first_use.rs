//! The first use of OpenCL from several threads at once: the ICD loader and
//! some drivers initialise lazily and not thread-safely (PoCL 3.1 crashed on
//! concurrent first `CL_DEVICE_NAME` queries), which `runtime::ocl::loader`
//! works around. One test per process, so that this really is the first use.

use dnnl::runtime::ocl::*;

#[test]
fn many_threads_list_devices_at_first_use() {
    let lists: Vec<Vec<(String, DeviceType)>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    devices_matching(&DeviceFilter::default())
                        .iter()
                        .map(|d| {
                            let info = d.info().unwrap();
                            (info.name, info.device_type)
                        })
                        .collect()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    assert!(lists.windows(2).all(|w| w[0] == w[1]));
    println!("8 threads saw the same {} devices", lists[0].len());
}

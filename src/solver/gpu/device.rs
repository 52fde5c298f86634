//! The GPU context: adapter, device and queue, with every failure turned into an `anyhow` error.
//!
//! wgpu reports most failures asynchronously (validation, out of memory, device loss). Errors
//! raised while creating resources are caught with error scopes around the creation; anything
//! else lands in an [`ErrorLog`] that the solver checks after every wait, so a failing device
//! ends the solve with a clear message instead of a panic or a hang.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};

use crate::error::Error;

/// Errors reported by wgpu outside any error scope since they were last taken, in order of
/// arrival, and the device's loss, which lasts.
#[derive(Clone, Default)]
struct ErrorLog(Arc<Mutex<Logged>>);

#[derive(Default)]
struct Logged {
    /// Errors since the last check.
    errors: Vec<String>,
    /// Why the device was lost, once it was.
    lost: Option<String>,
}

impl ErrorLog {
    fn push(&self, message: String) {
        if let Ok(mut log) = self.0.lock() {
            log.errors.push(message);
        }
    }

    fn lose(&self, message: String) {
        if let Ok(mut log) = self.0.lock() {
            log.lost.get_or_insert(message);
        }
    }

    /// The device's loss, else the first error logged since the last call (the rest were caused
    /// by it or by the same failure): one failed solve does not fail the next on the same device.
    fn take_first(&self) -> Option<String> {
        let mut log = self.0.lock().ok()?;
        let first = std::mem::take(&mut log.errors).into_iter().next();
        log.lost.clone().or(first)
    }
}

/// An open GPU: reuse it for many solves, opening a device is slow.
pub struct Gpu {
    pub(super) device: wgpu::Device,
    pub(super) queue: wgpu::Queue,
    pub(super) limits: wgpu::Limits,
    /// Whether compute passes can record timestamps.
    pub(super) timestamps: bool,
    errors: ErrorLog,
    description: String,
    software: bool,
}

impl Gpu {
    /// Opens the first adapter wgpu finds (a discrete GPU preferred; Mesa's software Vulkan driver
    /// where there is no GPU). Fails with a clear error when there is none.
    pub fn open() -> Result<Gpu> {
        // Compute needs no window system: the primary backends only (no GL, whose EGL probe
        // complains about missing display servers); WGPU_BACKEND still overrides.
        let descriptor = wgpu::InstanceDescriptor {
            backends: wgpu::Backends::PRIMARY,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        };
        let instance = wgpu::Instance::new(descriptor.with_env());
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        }))
        .map_err(|e| Error::NoGpu {
            reason: format!(
                "no GPU adapter found (wgpu: {e}): install a Vulkan driver (on Debian or Ubuntu \
                 mesa-vulkan-drivers gives a software one)"
            ),
        })?;
        let info = adapter.get_info();
        let limits = adapter.limits();
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let required_features = if timestamps {
            wgpu::Features::TIMESTAMP_QUERY
        } else {
            wgpu::Features::empty()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("egtb"),
            required_features,
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .with_context(|| format!("cannot open a device on GPU adapter '{}'", info.name))?;
        let errors = ErrorLog::default();
        let log = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| log.push(format!("{e}"))));
        let log = errors.clone();
        device.set_device_lost_callback(move |reason, message| {
            log.lose(format!("GPU device lost ({reason:?}): {message}"));
        });
        Ok(Gpu {
            device,
            queue,
            limits,
            timestamps,
            errors,
            description: describe(&info),
            software: info.device_type == wgpu::DeviceType::Cpu,
        })
    }

    /// Why no hardware GPU can be on this machine, found without opening a driver: on Linux, a
    /// hardware adapter needs a device node (a DRM render node, NVIDIA's or WSL's), and loading
    /// the Vulkan drivers only to learn that none has one costs about 70 MiB and 50 ms. `None`
    /// where a GPU may be present, or elsewhere than on Linux.
    pub fn absent_hardware() -> Option<&'static str> {
        #[cfg(target_os = "linux")]
        {
            let any_in = |dir: &str, prefix: &str| {
                std::fs::read_dir(dir).is_ok_and(|entries| {
                    entries
                        .flatten()
                        .any(|e| e.file_name().to_string_lossy().starts_with(prefix))
                })
            };
            let present =
                any_in("/dev/dri", "renderD") || any_in("/dev", "nvidia") || std::path::Path::new("/dev/dxg").exists();
            (!present).then_some("no GPU device on this machine (no /dev/dri/renderD*, /dev/nvidia* or /dev/dxg)")
        }
        #[cfg(not(target_os = "linux"))]
        None
    }

    /// Opens the GPU for work that can do without one (tests): `None`, with a note on stderr,
    /// when there is no adapter, unless `EGTB_REQUIRE_GPU=1` makes a missing adapter a failure.
    pub fn open_unless_absent() -> Result<Option<Gpu>> {
        match Gpu::open() {
            Ok(gpu) => Ok(Some(gpu)),
            Err(e) if std::env::var("EGTB_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
                Err(e.context("EGTB_REQUIRE_GPU=1 but no GPU could be opened"))
            }
            Err(e) => {
                eprintln!("no GPU, skipping: {e:#}");
                Ok(None)
            }
        }
    }

    /// The adapter's name, kind and backend, for reports: "llvmpipe (LLVM 15.0.6, 256 bits)
    /// (software, Vulkan)".
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Whether the adapter is a software driver running on the CPU (such as Mesa's llvmpipe).
    pub fn is_software(&self) -> bool {
        self.software
    }

    /// The largest buffer one storage binding may cover, in bytes.
    pub fn max_binding_bytes(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
    }

    /// Fails, naming `what` and the fix, unless a pipeline may bind `storage` storage buffers,
    /// at most `in_group` of them in one bind group.
    pub(super) fn check_storage_bindings(&self, what: &str, storage: u32, in_group: u32) -> Result<()> {
        let fix = "use --backend cpu (or a larger --gpu-split-mib, if one was set)";
        let most = self.limits.max_storage_buffers_per_shader_stage;
        if storage > most {
            bail!("{what} needs {storage} storage bindings, the device allows {most}; {fix}");
        }
        let most = self.limits.max_bindings_per_bind_group;
        if in_group > most {
            bail!("{what} needs {in_group} bindings in one group, the device allows {most}; {fix}");
        }
        Ok(())
    }

    /// Creates a zeroed buffer of `bytes` bytes for `usage`, labelled and checked: the one way
    /// the solver allocates GPU memory, so that a failure names `what` it was for.
    pub(super) fn buffer(&self, what: &str, bytes: u64, usage: wgpu::BufferUsages) -> Result<wgpu::Buffer> {
        self.checked(what, || {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(what),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        })
    }

    /// Runs `create` inside error scopes and turns a validation, out-of-memory or internal
    /// error it raised (a driver that fails to compile a pipeline raises an internal one) into an
    /// error naming `what`.
    pub(super) fn checked<T>(&self, what: &str, create: impl FnOnce() -> T) -> Result<T> {
        let memory = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let internal = self.device.push_error_scope(wgpu::ErrorFilter::Internal);
        let value = create();
        let failed = pollster::block_on(internal.pop());
        let invalid = pollster::block_on(validation.pop());
        let out_of_memory = pollster::block_on(memory.pop());
        if let Some(e) = out_of_memory {
            bail!("GPU out of memory creating {what} ({e}); use --backend cpu, or a GPU with more memory");
        }
        if let Some(e) = invalid {
            bail!("GPU rejected {what}: {e}");
        }
        if let Some(e) = failed {
            bail!("GPU failed creating {what}: {e}");
        }
        Ok(value)
    }

    /// The compute pipeline of kernel `entry` of `module`, checked.
    pub(super) fn pipeline(
        &self,
        module: &wgpu::ShaderModule,
        layout: &wgpu::PipelineLayout,
        entry: &str,
    ) -> Result<wgpu::ComputePipeline> {
        self.checked(&format!("the '{entry}' kernel"), || {
            self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(layout),
                module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        })
    }

    /// The pipelines of kernels `entries` of `module`, compiled side by side: the kernels that
    /// walk a state's moves (the game's move generation, inlined) take most of a driver's
    /// compile time.
    pub(super) fn pipelines<const N: usize>(
        &self,
        module: &wgpu::ShaderModule,
        layout: &wgpu::PipelineLayout,
        entries: [&str; N],
    ) -> [Result<wgpu::ComputePipeline>; N] {
        std::thread::scope(|scope| {
            entries
                .map(|entry| (entry, scope.spawn(move || self.pipeline(module, layout, entry))))
                .map(|(entry, compiling)| {
                    compiling
                        .join()
                        .unwrap_or_else(|_| Err(anyhow!("compiling the '{entry}' kernel failed")))
                })
        })
    }

    /// Submits `commands`, waits (at most `timeout`) for them and for the mapping of `readback`,
    /// then fails if the device reported any error meanwhile.
    pub(super) fn submit_and_map(
        &self,
        commands: wgpu::CommandBuffer,
        readback: &wgpu::Buffer,
        timeout: Duration,
    ) -> Result<()> {
        let index = self.queue.submit([commands]);
        let (sender, receiver) = mpsc::channel();
        readback.map_async(wgpu::MapMode::Read, .., move |result| {
            let _ = sender.send(result);
        });
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(index),
                timeout: Some(timeout),
            })
            .map_err(|e| match e {
                wgpu::PollError::Timeout => {
                    anyhow!(
                        "GPU work did not finish within {} s (allow more with --gpu-timeout SECONDS, or use --backend cpu)",
                        timeout.as_secs_f64()
                    )
                }
                e => anyhow!("waiting for the GPU failed: {e}"),
            })?;
        self.check()?;
        match receiver.try_recv() {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => bail!("cannot read GPU results back: {e}"),
            Err(_) => bail!("GPU results were not ready after the wait"),
        }
    }

    /// Fails when the device is lost, or with the first error it reported outside an error
    /// scope since the last check.
    pub(super) fn check(&self) -> Result<()> {
        match self.errors.take_first() {
            Some(message) => bail!("GPU error: {message}"),
            None => Ok(()),
        }
    }
}

/// An adapter in words: its name, then its kind and backend as a person reads them.
fn describe(info: &wgpu::AdapterInfo) -> String {
    let kind = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => "discrete GPU",
        wgpu::DeviceType::IntegratedGpu => "integrated GPU",
        wgpu::DeviceType::VirtualGpu => "virtual GPU",
        wgpu::DeviceType::Cpu => "software",
        wgpu::DeviceType::Other => "other",
    };
    let backend = match info.backend {
        wgpu::Backend::Vulkan => "Vulkan",
        wgpu::Backend::Metal => "Metal",
        wgpu::Backend::Dx12 => "DirectX 12",
        wgpu::Backend::Gl => "OpenGL",
        wgpu::Backend::BrowserWebGpu => "WebGPU",
        wgpu::Backend::Noop => "no backend",
    };
    format!("{} ({kind}, {backend})", info.name)
}

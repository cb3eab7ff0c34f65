# One lab VM's QEMU command line, shared by Lab/run (one VM per scenario) and a scenario's host
# step (several VMs, see Lab/scenarios/power-loss.sh). Sourced; needs LAB_KERNEL, LAB_INITRD,
# LAB_ROOT and LAB_BIN, which Lab/run exports.

# Sets qemu_command to the VM that runs `Lab/scenarios/NAME.sh run` inside with OUT as its
# results folder (/run/lab) and INIT (busybox or systemd) as init; any further arguments go to
# QEMU as they are (a `-drive` for a disk), and the words of lab_kernel_args (none by default) to
# the kernel's command line. Run it as "${qemu_command[@]}" > OUT/console.log.
#   lab_qemu_command NAME OUT INIT [QEMU ARGS...]
lab_qemu_command() {
    local name="$1" out="$2" init="$3"
    shift 3
    # No NIC (no option ROM to run, no device to probe); no_timer_check: on a loaded host the
    # kernel's check of the emulated IO-APIC timer can fail and panic the boot. A virtio RNG (the
    # host's entropy): without one the emulated CPU has no RDRAND, the kernel's random pool takes
    # 20-30 s to be ready, and every Swift program started before then waits for it in getrandom.
    qemu_command=(qemu-system-x86_64 -accel tcg -m 1024 -smp 1 -nographic -no-reboot -nic none
        -device virtio-rng-pci
        -kernel "$LAB_KERNEL" -initrd "$LAB_INITRD"
        -append "console=ttyS0 panic=-1 loglevel=4 cryptomgr.notests no_timer_check lab.scenario=$name lab.root=$LAB_ROOT lab.bin=$LAB_BIN lab.init=$init${lab_kernel_args:+ $lab_kernel_args}"
        -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
        -virtfs "local,path=$out,mount_tag=work,security_model=none,multidevs=remap"
        -virtfs "local,path=$LAB_ROOT,mount_tag=repo,security_model=none,readonly=on,multidevs=remap"
        -virtfs "local,path=$LAB_BIN,mount_tag=bin,security_model=none,readonly=on,multidevs=remap"
        "$@")
}

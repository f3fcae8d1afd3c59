#!/bin/sh
# Nightshift's example node updater for kubeadm-installed Debian and Ubuntu nodes.
#
# Runs in the privileged Job the agent pins to one node (nodeUpdates.type: job), with hostPID and
# the host's / mounted at /host. The contract (examples/node-updater/README.md):
#   NIGHTSHIFT_OPERATION   restart-kubelet | in-place-update
#   NIGHTSHIFT_NODE        the node's name          NIGHTSHIFT_POOL   its pool
#   NIGHTSHIFT_ROLL_HASH   the pool's roll hash     NIGHTSHIFT_KUBELET_HASH   its kubelet hash
#   NIGHTSHIFT_TARGET      JSON: {"machineImage": {"name", "version"}, "kubernetesVersion",
#                          "kubelet": {kubeReserved, systemReserved, evictionHard, cpuManagerPolicy}, "cri"}
# Exit 0 once the node runs the target; otherwise write the reason to the termination log and
# exit non-zero. Idempotent: the same Job may run again after a crash or a reboot.
#
# Test seams (never set them in a Job): NIGHTSHIFT_HOST_ROOT (default /host),
# NIGHTSHIFT_TERMINATION_LOG (default /dev/termination-log), NIGHTSHIFT_BOOT_ID_FILE,
# NIGHTSHIFT_KUBELET_HEALTH_TIMEOUT (seconds, default 120).
set -eu

HOST=${NIGHTSHIFT_HOST_ROOT:-/host}
TERMINATION_LOG=${NIGHTSHIFT_TERMINATION_LOG:-/dev/termination-log}
BOOT_ID_FILE=${NIGHTSHIFT_BOOT_ID_FILE:-/proc/sys/kernel/random/boot_id}
HEALTH_TIMEOUT=${NIGHTSHIFT_KUBELET_HEALTH_TIMEOUT:-120}
STATE_DIR=$HOST/var/lib/nightshift
DROP_IN_DIR=/etc/kubernetes/kubelet.conf.d
DROP_IN=$DROP_IN_DIR/50-nightshift.conf

log() {
  printf 'update-node: %s\n' "$*" >&2
}

# The reason goes to the termination log, which the agent reads from the pod's status.
reported=""
fail() {
  log "FAILED: $*"
  printf '%s\n' "$*" | tail -c 4000 >"$TERMINATION_LOG" 2>/dev/null || true
  reported=yes
  exit 1
}

# A command that failed under set -e leaves a reason too, if a vaguer one.
on_exit() {
  status=$?
  if [ "$status" -ne 0 ] && [ -z "$reported" ]; then
    printf 'update-node.sh stopped with exit code %s on %s; the pod log says where\n' "$status" "${NIGHTSHIFT_NODE:-?}" \
      >"$TERMINATION_LOG" 2>/dev/null || true
  fi
}
trap on_exit EXIT

# Package work on the host's files and package database.
on_host_files() {
  chroot "$HOST" "$@"
}

# Work that needs the host's processes: its systemd, its journal.
on_host() {
  nsenter -t 1 -m -u -i -n -p -- "$@"
}

# The image's own tools in the host's network (the kubelet's health port is on its loopback).
on_host_network() {
  nsenter -t 1 -n -- "$@"
}

require() {
  eval "value=\${$1:-}"
  [ -n "$value" ] || fail "$1 is not set: is this pod run by Nightshift's job node updater?"
}

for variable in NIGHTSHIFT_OPERATION NIGHTSHIFT_NODE NIGHTSHIFT_POOL NIGHTSHIFT_ROLL_HASH \
  NIGHTSHIFT_KUBELET_HASH NIGHTSHIFT_TARGET; do
  require "$variable"
done
command -v jq >/dev/null 2>&1 || fail "jq is missing from the updater image"
printf '%s' "$NIGHTSHIFT_TARGET" | jq -e 'type == "object"' >/dev/null 2>&1 ||
  fail "NIGHTSHIFT_TARGET is not a JSON object"
target() {
  printf '%s' "$NIGHTSHIFT_TARGET" | jq -r "$1 // empty"
}

VERSION=$(target .kubernetesVersion)
VERSION=${VERSION#v}
case $VERSION in
  [0-9]*.[0-9]*.[0-9]*) ;;
  *) fail "NIGHTSHIFT_TARGET.kubernetesVersion '$VERSION' is not MAJOR.MINOR.PATCH" ;;
esac
MINOR=${VERSION%.*}
[ -d "$HOST/etc" ] || fail "the host's / is not mounted at $HOST"

# The kubelet package at the target version, from pkgs.k8s.io's repository for its minor.
# Skipped when already installed (idempotent).
install_kubelet() {
  # shellcheck disable=SC2016 # ${Version} is dpkg-query's format, not the shell's
  installed=$(on_host_files dpkg-query -W -f='${Version}' kubelet 2>/dev/null || true)
  case $installed in
    "$VERSION"-*)
      log "kubelet $installed is installed already"
      return 0
      ;;
  esac
  list=$HOST/etc/apt/sources.list.d/kubernetes.list
  [ -f "$list" ] || fail "$list is missing: install the kubelet from pkgs.k8s.io as kubeadm's documentation shows"
  if ! grep -q "pkgs.k8s.io/core:/stable:/v$MINOR/deb/" "$list"; then
    # kubeadm's upgrade documentation: point the repository at the new minor. The key is kept.
    sed "s#pkgs.k8s.io/core:/stable:/v[0-9][0-9.]*/deb/#pkgs.k8s.io/core:/stable:/v$MINOR/deb/#" "$list" >"$list.nightshift"
    mv "$list.nightshift" "$list"
    grep -q "pkgs.k8s.io/core:/stable:/v$MINOR/deb/" "$list" || fail "$list does not name a pkgs.k8s.io repository"
  fi
  log "installing kubelet $VERSION (was ${installed:-none})"
  on_host_files env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || fail "apt-get update failed on $NIGHTSHIFT_NODE"
  on_host_files apt-mark unhold kubelet >&2 || true
  on_host_files env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --allow-downgrades \
    --allow-change-held-packages "kubelet=$VERSION-*" >&2 ||
    fail "apt-get could not install kubelet=$VERSION-* on $NIGHTSHIFT_NODE (is v$MINOR's repository reachable?)"
  on_host_files apt-mark hold kubelet >&2 || true
}

# The kubelet settings of the target, as a drop-in KubeletConfiguration over kubeadm's
# /var/lib/kubelet/config.yaml (which `kubeadm upgrade node` rewrites from the kubelet-config
# ConfigMap, so it is not edited here). The drop-in directory needs Kubernetes 1.30+ and the
# kubelet flag --config-dir, added to KUBELET_EXTRA_ARGS in /etc/default/kubelet (read by
# kubeadm's systemd unit). Only the four settings Nightshift knows are written.
write_kubelet_settings() {
  settings=$(printf '%s' "$NIGHTSHIFT_TARGET" | jq -c '(.kubelet // {})
    | with_entries(select(.key | IN("kubeReserved", "systemReserved", "evictionHard", "cpuManagerPolicy")))')
  old_policy=""
  if [ -f "$HOST$DROP_IN" ]; then
    old_policy=$(jq -r '.cpuManagerPolicy // "none"' "$HOST$DROP_IN" 2>/dev/null || echo none)
  fi
  if [ "$settings" = "{}" ]; then
    rm -f "$HOST$DROP_IN"
  else
    case $MINOR in
      1.[0-9] | 1.[12][0-9]) fail "kubelet settings need the kubelet's drop-in directory (Kubernetes 1.30+), not $VERSION" ;;
    esac
    mkdir -p "$HOST$DROP_IN_DIR"
    printf '%s' "$settings" | jq '{apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration"} + .' \
      >"$HOST$DROP_IN.nightshift"
    mv "$HOST$DROP_IN.nightshift" "$HOST$DROP_IN"
    defaults=$HOST/etc/default/kubelet
    mkdir -p "$HOST/etc/default"
    if ! grep -q -- "--config-dir=" "$defaults" 2>/dev/null; then
      if grep -q '^KUBELET_EXTRA_ARGS=' "$defaults" 2>/dev/null; then
        sed "s#^KUBELET_EXTRA_ARGS=\(\"\{0,1\}\)#KUBELET_EXTRA_ARGS=\1--config-dir=$DROP_IN_DIR #" "$defaults" >"$defaults.nightshift"
        mv "$defaults.nightshift" "$defaults"
      else
        printf 'KUBELET_EXTRA_ARGS=--config-dir=%s\n' "$DROP_IN_DIR" >>"$defaults"
      fi
    fi
  fi
  new_policy=$(printf '%s' "$settings" | jq -r '.cpuManagerPolicy // "none"')
  if [ -n "$old_policy" ] && [ "$old_policy" != "$new_policy" ]; then
    # The kubelet refuses to start with a CPU manager state written under another policy.
    rm -f "$HOST/var/lib/kubelet/cpu_manager_state"
  fi
}

wait_for_kubelet() {
  waited=0
  until on_host_network curl -sf --max-time 2 http://127.0.0.1:10248/healthz >/dev/null 2>&1; do
    if [ "$waited" -ge "$HEALTH_TIMEOUT" ]; then
      journal=$(on_host journalctl -u kubelet -n 3 --no-pager 2>/dev/null || true)
      fail "the kubelet on $NIGHTSHIFT_NODE is not healthy ${HEALTH_TIMEOUT}s after its restart to v$VERSION; last log lines: $journal"
    fi
    sleep 2
    waited=$((waited + 2))
  done
  running=$(on_host_files kubelet --version 2>/dev/null || true)
  [ "$running" = "Kubernetes v$VERSION" ] || fail "the kubelet on $NIGHTSHIFT_NODE reports '$running', not Kubernetes v$VERSION"
}

restart_kubelet() {
  install_kubelet
  write_kubelet_settings
  # Restarting a kubelet is harmless to the pods it runs, so a repeated Job restarts it again.
  on_host systemctl daemon-reload || fail "systemctl daemon-reload failed on $NIGHTSHIFT_NODE"
  on_host systemctl restart kubelet || fail "systemctl restart kubelet failed on $NIGHTSHIFT_NODE"
  wait_for_kubelet
  log "kubelet v$VERSION healthy on $NIGHTSHIFT_NODE"
}

# What a real in-place OS update needs is an image: the whole root filesystem replaced by the
# target's, atomically (an A/B partition switch), verified, and booted — with a way back if it
# does not boot. Image-based systems have their own tools for that (Garden Linux, Flatcar's
# update_engine, Talos's upgrade API, which has no shell on the node at all); there, this script
# would hand the target to that tool and wait for it. A package-managed Debian or Ubuntu has no
# "image version" to go to: all that is honest here is to upgrade the packages of the release
# the node already runs from its configured repositories, install the target kubelet, and reboot.
# That does not make the node identical to a machine freshly built from the target image; a
# release upgrade (22.04 to 24.04) is refused: replace such machines instead.
in_place_update() {
  image=$(target .machineImage.name)
  image_version=$(target .machineImage.version)
  [ -f "$HOST/etc/os-release" ] || fail "$HOST/etc/os-release is missing"
  # shellcheck disable=SC1091 # the host's file, read at run time
  os_id=$(. "$HOST/etc/os-release" && printf '%s' "${ID:-}")
  # shellcheck disable=SC1091
  os_version=$(. "$HOST/etc/os-release" && printf '%s' "${VERSION_ID:-}")
  case $os_id in
    debian | ubuntu) ;;
    *) fail "this updater updates Debian and Ubuntu nodes; $NIGHTSHIFT_NODE runs '$os_id'" ;;
  esac
  case $image in
    "$os_id" | "$os_id"-*) ;;
    *) fail "target image '$image' is not $os_id, which $NIGHTSHIFT_NODE runs: replace the machine" ;;
  esac
  case $image_version in
    "$os_version" | "$os_version".*) ;;
    *) fail "target image version '$image_version' is another release than $os_id $os_version: replace the machine" ;;
  esac
  marker=$STATE_DIR/in-place-$NIGHTSHIFT_ROLL_HASH
  boot_id=$(cat "$BOOT_ID_FILE")
  if [ -f "$marker" ] && [ "$(cat "$marker")" != "$boot_id" ]; then
    # Updated, then rebooted: this is the Job's run after the reboot.
    wait_for_kubelet
    log "$NIGHTSHIFT_NODE rebooted after its update to $image $image_version"
    return 0
  fi
  if [ ! -f "$marker" ]; then
    on_host_files env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || fail "apt-get update failed on $NIGHTSHIFT_NODE"
    on_host_files apt-mark hold kubelet kubeadm kubectl >&2 || true
    on_host_files env DEBIAN_FRONTEND=noninteractive apt-get -y -q -o Dpkg::Options::=--force-confold upgrade >&2 ||
      fail "apt-get upgrade failed on $NIGHTSHIFT_NODE"
    install_kubelet
    write_kubelet_settings
    mkdir -p "$STATE_DIR"
    printf '%s\n' "$boot_id" >"$marker"
  fi
  # The reboot ends this pod; the Job's next pod finds the marker from an earlier boot and
  # confirms the kubelet. (One of the Job's backoffLimit retries is spent on the reboot.)
  log "rebooting $NIGHTSHIFT_NODE"
  on_host systemctl reboot || fail "systemctl reboot failed on $NIGHTSHIFT_NODE"
  sleep 600
  fail "$NIGHTSHIFT_NODE was asked to reboot 10 minutes ago and still runs"
}

log "$NIGHTSHIFT_OPERATION on $NIGHTSHIFT_NODE (pool $NIGHTSHIFT_POOL, roll $NIGHTSHIFT_ROLL_HASH, kubelet $NIGHTSHIFT_KUBELET_HASH) to Kubernetes $VERSION"
case $NIGHTSHIFT_OPERATION in
  restart-kubelet) restart_kubelet ;;
  in-place-update) in_place_update ;;
  *) fail "unknown NIGHTSHIFT_OPERATION '$NIGHTSHIFT_OPERATION': expected restart-kubelet or in-place-update" ;;
esac

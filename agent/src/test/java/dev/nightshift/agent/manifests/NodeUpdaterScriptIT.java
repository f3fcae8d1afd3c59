package dev.nightshift.agent.manifests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples/node-updater/update-node.sh}: clean under {@code shellcheck -s sh} (shellcheck must be installed,
 * Debian's {@code shellcheck}; {@code ./verify} installs it: its absence fails the test, never skips it), and its
 * {@code restart-kubelet} path run against a fake host root, with stubs for what it runs on the host ({@code chroot},
 * {@code nsenter}, {@code apt-get}, {@code apt-mark}, {@code dpkg-query}, {@code systemctl}, {@code journalctl},
 * {@code kubelet}, {@code curl}, {@code sleep}) that record their calls.
 */
class NodeUpdaterScriptIT {

    private static final Path SCRIPT = Path.of(System.getProperty("nightshift.examples", "../examples"))
            .resolve("node-updater/update-node.sh");
    private static final String TARGET = """
            {"machineImage": {"name": "ubuntu", "version": "24.04"}, "kubernetesVersion": "1.31.5",
             "kubelet": {"kubeReserved": {"cpu": "100m", "memory": "1Gi"}, "cpuManagerPolicy": "static"}, "cri": "containerd"}""";

    @TempDir
    Path tmp;

    private Path host;
    private Path bin;
    private Path state;

    private record Run(int exitCode, String output) {
    }

    private static Path tool(String name) {
        Optional<Path> found = Optional.ofNullable(System.getenv("PATH")).stream()
                .flatMap(path -> List.of(path.split(File.pathSeparator)).stream())
                .map(dir -> Path.of(dir, name)).filter(Files::isExecutable).findFirst();
        if (found.isEmpty()) {
            fail("%s is not on the PATH: install Debian's %s (apt-get install -y %s); ./verify installs it", name, name, name);
        }
        return found.get();
    }

    private static Run exec(List<String> command, Map<String, String> env, Path dir) throws IOException, InterruptedException {
        Path out = Files.createTempFile(dir, "out", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("%s did not finish in 60 s", command);
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    private void stub(String name, String body) throws IOException {
        Path file = bin.resolve(name);
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @BeforeEach
    void fakeHost() throws IOException {
        host = Files.createDirectories(tmp.resolve("host"));
        bin = Files.createDirectories(tmp.resolve("bin"));
        state = Files.createDirectories(tmp.resolve("state"));
        Files.createDirectories(host.resolve("etc/apt/sources.list.d"));
        Files.writeString(host.resolve("etc/apt/sources.list.d/kubernetes.list"),
                "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v1.30/deb/ /\n");
        Files.writeString(host.resolve("etc/os-release"), "ID=ubuntu\nVERSION_ID=\"24.04\"\n");
        Files.writeString(state.resolve("kubelet"), "1.30.9-1.1\n");
        // chroot ROOT CMD… and nsenter … -- CMD… run CMD here; the host's tools are the stubs below.
        stub("chroot", "shift\nexec \"$@\"");
        stub("nsenter", "while [ \"$1\" != \"--\" ]; do shift; done\nshift\nexec \"$@\"");
        for (String recorded : List.of("apt-mark", "systemctl", "journalctl")) {
            stub(recorded, "echo \"" + recorded + " $*\" >> \"$STUB_STATE/calls\"");
        }
        stub("apt-get", """
                echo "apt-get $*" >> "$STUB_STATE/calls"
                for a in "$@"; do case $a in kubelet=*) v=${a#kubelet=}; echo "${v%-\\*}-1.1" > "$STUB_STATE/kubelet";; esac; done""");
        stub("dpkg-query", "cat \"$STUB_STATE/kubelet\"");
        stub("kubelet", "echo \"Kubernetes v$(cut -d- -f1 \"$STUB_STATE/kubelet\")\"");
        stub("curl", "echo \"curl $*\" >> \"$STUB_STATE/calls\"\n[ ! -f \"$STUB_STATE/unhealthy\" ]");
        stub("sleep", ":");
    }

    private Run restartKubelet() throws IOException, InterruptedException {
        Files.deleteIfExists(state.resolve("calls"));
        Map<String, String> env = Map.ofEntries(
                Map.entry("PATH", bin + File.pathSeparator + "/usr/bin" + File.pathSeparator + "/bin"),
                Map.entry("STUB_STATE", state.toString()),
                Map.entry("NIGHTSHIFT_HOST_ROOT", host.toString()),
                Map.entry("NIGHTSHIFT_TERMINATION_LOG", tmp.resolve("termination-log").toString()),
                Map.entry("NIGHTSHIFT_KUBELET_HEALTH_TIMEOUT", "4"),
                Map.entry("NIGHTSHIFT_OPERATION", "restart-kubelet"),
                Map.entry("NIGHTSHIFT_NODE", "ip-10-0-1-17"),
                Map.entry("NIGHTSHIFT_POOL", "web"),
                Map.entry("NIGHTSHIFT_ROLL_HASH", "0123456789abcdef"),
                Map.entry("NIGHTSHIFT_KUBELET_HASH", "fedcba9876543210"),
                Map.entry("NIGHTSHIFT_TARGET", TARGET));
        return exec(List.of("/bin/sh", SCRIPT.toAbsolutePath().toString()), env, tmp);
    }

    private List<String> calls() throws IOException {
        Path calls = state.resolve("calls");
        return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
    }

    @Test
    void theScriptIsCleanUnderShellcheckAsPosixSh() throws Exception {
        Run run = exec(List.of(tool("shellcheck").toString(), "-s", "sh", SCRIPT.toString()), Map.of(), tmp);

        assertThat(run.output()).as("shellcheck's findings").isEmpty();
        assertThat(run.exitCode()).isZero();
    }

    @Test
    void restartKubeletInstallsTheTargetFromItsMinorsRepositoryWritesTheSettingsRestartsAndWaitsForHealth() throws Exception {
        tool("jq");
        Run run = restartKubelet();

        assertThat(run.exitCode()).as("output: %s", run.output()).isZero();
        assertThat(calls()).containsExactly(
                "apt-get update -q",
                "apt-mark unhold kubelet",
                "apt-get install -y -q --allow-downgrades --allow-change-held-packages kubelet=1.31.5-*",
                "apt-mark hold kubelet",
                "systemctl daemon-reload",
                "systemctl restart kubelet",
                "curl -sf --max-time 2 http://127.0.0.1:10248/healthz");
        assertThat(Files.readString(host.resolve("etc/apt/sources.list.d/kubernetes.list")))
                .contains("pkgs.k8s.io/core:/stable:/v1.31/deb/").doesNotContain("v1.30");
        assertThat(Files.readString(host.resolve("etc/kubernetes/kubelet.conf.d/50-nightshift.conf")))
                .contains("\"kind\": \"KubeletConfiguration\"").contains("\"cpuManagerPolicy\": \"static\"").contains("\"memory\": \"1Gi\"");
        assertThat(Files.readString(host.resolve("etc/default/kubelet")))
                .isEqualTo("KUBELET_EXTRA_ARGS=--config-dir=/etc/kubernetes/kubelet.conf.d\n");
        assertThat(tmp.resolve("termination-log")).doesNotExist();
    }

    @Test
    void runAgainItInstallsNothingAndOnlyRestartsTheKubelet() throws Exception {
        assertThat(restartKubelet().exitCode()).isZero();
        String settings = Files.readString(host.resolve("etc/kubernetes/kubelet.conf.d/50-nightshift.conf"));

        Run again = restartKubelet();

        assertThat(again.exitCode()).as("output: %s", again.output()).isZero();
        assertThat(calls()).containsExactly("systemctl daemon-reload", "systemctl restart kubelet",
                "curl -sf --max-time 2 http://127.0.0.1:10248/healthz");
        assertThat(Files.readString(host.resolve("etc/kubernetes/kubelet.conf.d/50-nightshift.conf"))).isEqualTo(settings);
        assertThat(Files.readString(host.resolve("etc/default/kubelet")))
                .isEqualTo("KUBELET_EXTRA_ARGS=--config-dir=/etc/kubernetes/kubelet.conf.d\n");
    }

    @Test
    void aKubeletThatStaysUnhealthyFailsTheRunWithAReasonInTheTerminationLog() throws Exception {
        Files.writeString(state.resolve("unhealthy"), "");

        Run run = restartKubelet();

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(Files.readString(tmp.resolve("termination-log")))
                .startsWith("the kubelet on ip-10-0-1-17 is not healthy 4s after its restart to v1.31.5");
        List<String> healthChecks = new ArrayList<>(calls());
        healthChecks.removeIf(c -> !c.startsWith("curl "));
        assertThat(healthChecks).as("it waited, checking again").hasSizeGreaterThan(1);
    }
}

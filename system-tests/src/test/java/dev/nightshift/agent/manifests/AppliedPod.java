package dev.nightshift.agent.manifests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The agent's pod as a kubelet would set it up from what the API server holds, read from the applied objects (never
 * from the repository's files): the Deployment's pod template (its one container's command, args, env, ports, limits),
 * each volume laid out under {@code root} (a ConfigMap's and a Secret's keys as files with the volume's mode, an
 * emptyDir as an empty directory) and where the container sees each one. What it does not know how to set up (an env
 * var from a Secret, a projected volume, a second container) fails the test rather than be left out.
 *
 * @param name        the pod's name, as {@code metadata.name} (what {@code fieldRef: metadata.name} gives)
 * @param image       the container's image reference, as the Deployment names it
 * @param command     the container's {@code command}; empty: the image's entrypoint
 * @param env         the container's environment, every value resolved
 * @param mounts      where the container sees each volume, by container path
 * @param ports       the container's ports by name
 * @param memoryLimit {@code resources.limits.memory}, in bytes, if set
 * @param cpuLimit    {@code resources.limits.cpu}, in cores, if set
 * @param security    the pod's and the container's securityContext, the container's winning
 */
record AppliedPod(String name, String namespace, String image, List<String> command, List<String> args, Map<String, String> env,
                  List<Mount> mounts, Map<String, Integer> ports, Optional<Long> memoryLimit, Optional<Double> cpuLimit,
                  String serviceAccount, Security security) {

    /**
     * What the securityContexts ask of the runtime: the user and group (the image's if unset), the volumes' group
     * ({@code fsGroup}, which {@link #layOut} gives the files as a kubelet does, and which the process gets as a
     * supplementary group), a read-only root, privilege escalation, capabilities dropped and added.
     */
    record Security(Optional<Long> runAsUser, Optional<Long> runAsGroup, Optional<Long> fsGroup, boolean readOnlyRootFilesystem,
                    boolean allowPrivilegeEscalation, List<String> dropCapabilities, List<String> addCapabilities) {

        static Security of(PodSpec spec, Container container) {
            var pod = Optional.ofNullable(spec.getSecurityContext());
            var own = Optional.ofNullable(container.getSecurityContext());
            var capabilities = own.map(c -> c.getCapabilities());
            return new Security(own.map(c -> c.getRunAsUser()).or(() -> pod.map(p -> p.getRunAsUser())),
                    own.map(c -> c.getRunAsGroup()).or(() -> pod.map(p -> p.getRunAsGroup())), pod.map(p -> p.getFsGroup()),
                    own.map(c -> c.getReadOnlyRootFilesystem()).orElse(false),
                    // Kubernetes' default: true unless set false
                    own.map(c -> c.getAllowPrivilegeEscalation()).orElse(true),
                    capabilities.map(c -> c.getDrop()).orElse(List.of()), capabilities.map(c -> c.getAdd()).orElse(List.of()));
        }
    }

    /** What a volume is made from; a runtime that cannot show the container's paths rewrites them in configuration files. */
    enum Source { CONFIG_MAP, SECRET, EMPTY_DIR }

    /** A volume (or, with {@code subPath}, one file of it) as the container sees it at {@code containerPath}. */
    record Mount(String containerPath, Path hostPath, Source source, boolean readOnly) {
    }

    AppliedPod {
        command = List.copyOf(command);
        args = List.copyOf(args);
        env = Map.copyOf(env);
        mounts = List.copyOf(mounts);
        ports = Map.copyOf(ports);
    }

    /**
     * The pod {@code deployment} (as read from the API server) makes, named {@code podName}, its volumes laid out under
     * {@code root} from the ConfigMaps and Secrets the API server holds now.
     */
    static AppliedPod layOut(KubernetesClient client, Deployment deployment, String podName, Path root) throws IOException {
        String namespace = deployment.getMetadata().getNamespace();
        PodSpec spec = deployment.getSpec().getTemplate().getSpec();
        if (spec.getContainers().size() != 1 || (spec.getInitContainers() != null && !spec.getInitContainers().isEmpty())) {
            throw new AssertionError("the agent's pod has one container and no init container: " + spec.getContainers());
        }
        Container container = spec.getContainers().get(0);
        Map<String, Path> volumes = new LinkedHashMap<>();
        Map<String, Source> sources = new LinkedHashMap<>();
        for (Volume volume : spec.getVolumes()) {
            Path dir = Files.createDirectories(root.resolve("volumes").resolve(volume.getName()));
            volumes.put(volume.getName(), dir);
            if (volume.getConfigMap() != null) {
                ConfigMap map = client.configMaps().inNamespace(namespace).withName(volume.getConfigMap().getName()).get();
                if (map == null) {
                    throw new AssertionError("the pod mounts ConfigMap " + volume.getConfigMap().getName() + ", which does not exist");
                }
                int mode = Optional.ofNullable(volume.getConfigMap().getDefaultMode()).orElse(0644);
                for (Map.Entry<String, String> e : Optional.ofNullable(map.getData()).orElse(Map.of()).entrySet()) {
                    write(dir.resolve(e.getKey()), e.getValue().getBytes(StandardCharsets.UTF_8), mode);
                }
                sources.put(volume.getName(), Source.CONFIG_MAP);
            } else if (volume.getSecret() != null) {
                Secret secret = client.secrets().inNamespace(namespace).withName(volume.getSecret().getSecretName()).get();
                if (secret == null) {
                    // The kubelet would keep the pod in ContainerCreating; a test waits for nothing.
                    throw new AssertionError("the pod mounts Secret " + volume.getSecret().getSecretName() + ", which does not exist");
                }
                int mode = Optional.ofNullable(volume.getSecret().getDefaultMode()).orElse(0644);
                for (Map.Entry<String, String> e : Optional.ofNullable(secret.getData()).orElse(Map.of()).entrySet()) {
                    write(dir.resolve(e.getKey()), Base64.getDecoder().decode(e.getValue()), mode);
                }
                sources.put(volume.getName(), Source.SECRET);
            } else if (volume.getEmptyDir() != null) {
                sources.put(volume.getName(), Source.EMPTY_DIR);
            } else {
                throw new AssertionError("volume " + volume.getName() + " is of a kind this test's kubelet does not lay out: " + volume);
            }
        }
        Optional<Long> fsGroup = Optional.ofNullable(spec.getSecurityContext()).map(c -> c.getFsGroup());
        if (fsGroup.isPresent()) {
            // As the kubelet does with fsGroup: each volume's files the group's, its directories setgid; an emptyDir
            // group-writable.
            for (Map.Entry<String, Path> v : volumes.entrySet()) {
                fsGroup(v.getValue(), fsGroup.get(), sources.get(v.getKey()) == Source.EMPTY_DIR);
            }
        }
        List<Mount> mounts = new ArrayList<>();
        for (VolumeMount m : container.getVolumeMounts()) {
            Path dir = volumes.get(m.getName());
            if (dir == null) {
                throw new AssertionError("volume " + m.getName() + " is mounted but not defined");
            }
            Path host = m.getSubPath() == null || m.getSubPath().isEmpty() ? dir : dir.resolve(m.getSubPath());
            mounts.add(new Mount(m.getMountPath(), host, sources.get(m.getName()), Boolean.TRUE.equals(m.getReadOnly())));
        }
        Map<String, String> env = new LinkedHashMap<>();
        for (EnvVar e : Optional.ofNullable(container.getEnv()).orElse(List.of())) {
            env.put(e.getName(), value(e, podName, namespace, spec.getServiceAccountName()));
        }
        Map<String, Integer> ports = new LinkedHashMap<>();
        Optional.ofNullable(container.getPorts()).orElse(List.of()).forEach(p -> ports.put(p.getName(), p.getContainerPort()));
        Map<String, Quantity> limits = container.getResources() == null || container.getResources().getLimits() == null ? Map.of()
                : container.getResources().getLimits();
        return new AppliedPod(podName, namespace, container.getImage(), Optional.ofNullable(container.getCommand()).orElse(List.of()),
                Optional.ofNullable(container.getArgs()).orElse(List.of()), env, mounts, ports,
                Optional.ofNullable(limits.get("memory")).map(q -> Quantity.getAmountInBytes(q).longValueExact()),
                Optional.ofNullable(limits.get("cpu")).map(q -> Quantity.getAmountInBytes(q).doubleValue()),
                spec.getServiceAccountName(), Security.of(spec, container));
    }

    private static void fsGroup(Path dir, long group, boolean writable) throws IOException {
        List<String> commands = new ArrayList<>();
        commands.add("chgrp -R " + group + " " + dir);
        commands.add("chmod g+s " + dir);
        if (writable) {
            commands.add("chmod 2770 " + dir);
        }
        for (String command : commands) {
            Process p = new ProcessBuilder(command.split(" ")).redirectErrorStream(true).start();
            try {
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (p.waitFor() != 0) {
                    throw new IOException(command + ": " + out);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
    }

    private static String value(EnvVar e, String podName, String namespace, String serviceAccount) {
        if (e.getValueFrom() == null) {
            return Optional.ofNullable(e.getValue()).orElse("");
        }
        if (e.getValueFrom().getFieldRef() != null) {
            return switch (e.getValueFrom().getFieldRef().getFieldPath()) {
                case "metadata.name" -> podName;
                case "metadata.namespace" -> namespace;
                case "spec.serviceAccountName" -> serviceAccount;
                default -> throw new AssertionError("env " + e.getName() + ": this test's kubelet does not give "
                        + e.getValueFrom().getFieldRef().getFieldPath());
            };
        }
        throw new AssertionError("env " + e.getName() + " comes from what this test's kubelet does not read: " + e.getValueFrom());
    }

    private static void write(Path file, byte[] content, int mode) throws IOException {
        Files.write(file, content);
        Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] order = {PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
                PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE,
                PosixFilePermission.GROUP_READ, PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
                PosixFilePermission.OWNER_READ};
        for (int bit = 0; bit < order.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                permissions.add(order[bit]);
            }
        }
        Files.setPosixFilePermissions(file, permissions);
    }

    /** Where on this machine the container's {@code path} is, if a volume holds it (the longest mount path that does). */
    Optional<Path> hostPath(String path) {
        return mounts.stream().filter(m -> Path.of(path).startsWith(Path.of(m.containerPath())))
                .max(Comparator.comparingInt(m -> m.containerPath().length()))
                .map(m -> m.hostPath().resolve(Path.of(m.containerPath()).relativize(Path.of(path)).toString()).normalize());
    }

    /**
     * {@code text} with every path under a mount (a mount path followed by {@code /}, or ending where a path ends)
     * replaced by where it is on this machine: for a runtime that runs the container's process without its file
     * system, such as {@link JarRuntime}.
     */
    String rebase(String text) {
        // One pass over the text, longest mount path first, so that a replacement (which may itself start with a mount
        // path, such as /tmp) is never rewritten again.
        List<Mount> longestFirst = mounts.stream().sorted(Comparator.comparingInt((Mount m) -> m.containerPath().length()).reversed())
                .toList();
        Pattern any = Pattern.compile("(?<![\\w./-])(" + String.join("|", longestFirst.stream().map(m -> Pattern.quote(m.containerPath()))
                .toList()) + ")(?=[/\\s\"',]|$)", Pattern.MULTILINE);
        Matcher matcher = any.matcher(text);
        StringBuilder result = new StringBuilder();
        while (matcher.find()) {
            Path host = longestFirst.stream().filter(m -> m.containerPath().equals(matcher.group(1))).findFirst().orElseThrow().hostPath();
            matcher.appendReplacement(result, Matcher.quoteReplacement(host.toString()));
        }
        matcher.appendTail(result);
        return result.toString();
    }
}

package dev.nightshift.image;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * An OCI image archive (an OCI layout in a tar file, as {@code skopeo copy oci-archive:…} reads it) taken apart with
 * the system's {@code tar}: its index, manifest and config, each blob checked against its digest and size, and its
 * layers unpacked into a directory to look at the files the image holds.
 */
public final class OciArchive {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path layout;
    private final JsonNode index;
    private final JsonNode manifest;
    private final JsonNode config;

    private OciArchive(Path layout, JsonNode index, JsonNode manifest, JsonNode config) {
        this.layout = layout;
        this.index = index;
        this.manifest = manifest;
        this.config = config;
    }

    /** Extracts {@code archive} into {@code dir} and reads its one image; fails if a blob does not match its digest. */
    public static OciArchive open(Path archive, Path dir) throws IOException, InterruptedException {
        Path layout = Files.createDirectories(dir);
        tar("-xf", archive.toString(), "-C", layout.toString());
        if (!Files.exists(layout.resolve("oci-layout"))) {
            throw new AssertionError(archive + " is not an OCI layout archive: no oci-layout file");
        }
        JsonNode index = JSON.readTree(layout.resolve("index.json").toFile());
        if (index.path("manifests").size() != 1) {
            throw new AssertionError(archive + " should hold one image, its index.json lists " + index.path("manifests").size());
        }
        JsonNode manifest = JSON.readTree(verified(layout, index.path("manifests").get(0)).toFile());
        JsonNode config = JSON.readTree(verified(layout, manifest.path("config")).toFile());
        for (JsonNode layer : manifest.path("layers")) {
            verified(layout, layer);
        }
        return new OciArchive(layout, index, manifest, config);
    }

    /** The blob a descriptor names, after checking its SHA-256 and size against the descriptor's. */
    private static Path verified(Path layout, JsonNode descriptor) throws IOException {
        String digest = descriptor.path("digest").asText();
        Path blob = blob(layout, digest);
        if (!Files.exists(blob)) {
            throw new AssertionError("blob " + digest + " is named but not in the archive");
        }
        if (Files.size(blob) != descriptor.path("size").asLong()) {
            throw new AssertionError("blob " + digest + " has " + Files.size(blob) + " bytes, its descriptor says " + descriptor.path("size"));
        }
        String actual = sha256(blob);
        if (!digest.equals(actual)) {
            throw new AssertionError("blob " + digest + " has the digest " + actual);
        }
        return blob;
    }

    private static Path blob(Path layout, String digest) {
        if (!digest.startsWith("sha256:")) {
            throw new AssertionError("not a sha256 digest: " + digest);
        }
        return layout.resolve("blobs/sha256").resolve(digest.substring("sha256:".length()));
    }

    /** {@code sha256:HEX} of a file. */
    public static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                sha.update(buffer, 0, n);
            }
            return "sha256:" + HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The manifest's digest, the image's name in a registry ({@code image@sha256:…}). */
    public String digest() {
        return index.path("manifests").get(0).path("digest").asText();
    }

    /** The name {@code podman load} gives the image ({@code org.opencontainers.image.ref.name}). */
    public String refName() {
        return index.path("manifests").get(0).path("annotations").path("org.opencontainers.image.ref.name").asText();
    }

    public JsonNode manifest() {
        return manifest;
    }

    /** The image configuration: {@code config} (user, entrypoint, labels…), {@code rootfs}, {@code history}. */
    public JsonNode config() {
        return config;
    }

    /** The image's ID as podman and Docker show it: the config's digest. */
    public String id() {
        return manifest.path("config").path("digest").asText();
    }

    /** The layers' media types, bottom first. */
    public List<String> layerTypes() {
        return StreamSupport.stream(manifest.path("layers").spliterator(), false).map(l -> l.path("mediaType").asText()).toList();
    }

    /** Unpacks every layer, bottom first, into {@code rootfs}: the image's file system as a container starts with it. */
    public Path unpack(Path rootfs) throws IOException, InterruptedException {
        Files.createDirectories(rootfs);
        for (JsonNode layer : manifest.path("layers")) {
            tar("-xzf", blob(layout, layer.path("digest").asText()).toString(), "-C", rootfs.toString());
        }
        return rootfs;
    }

    private static void tar(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("tar"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(2, TimeUnit.MINUTES) || process.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed: " + output);
        }
    }
}

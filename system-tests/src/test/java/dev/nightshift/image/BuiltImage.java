package dev.nightshift.image;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The image of this Maven run, built once: {@code ./build-image --no-maven --output DIR} on the jars the run left in
 * {@code image/target/image}, by the first test that asks for it (ImageIT, InstallIT), in whichever of failsafe's test
 * JVMs it runs; the others wait on a lock in DIR and take what it built. The run is told by the system property
 * {@code nightshift.imageRun} (the POM gives the build's start time): an archive left in DIR by an earlier run is built
 * again. Without the property (a test run from an IDE), each JVM builds it once.
 *
 * @param output       where {@code build-image} wrote it: the archive, its digest and SBOM
 * @param archive      the OCI archive, {@code nightshift-image.tar}
 * @param digest       its manifest digest as {@code build-image} printed it into {@code nightshift-image.digest}
 * @param buildSeconds how long this JVM waited for it: the build, or the wait for another JVM's, or 0
 * @param builtHere    whether this JVM built it
 */
public record BuiltImage(Path output, Path archive, String digest, double buildSeconds, boolean builtHere) {

    public static final Path BUILD_IMAGE = Path.of(System.getProperty("nightshift.buildImage", "../build-image")).toAbsolutePath();
    public static final Path OUTPUT = Path.of(System.getProperty("nightshift.imageOutput", "target/image")).toAbsolutePath();
    private static final String RUN = System.getProperty("nightshift.imageRun", "jvm-" + UUID.randomUUID());

    private static BuiltImage built;

    /** The image, built now if no test JVM of this run has built it. */
    public static synchronized BuiltImage get() throws IOException, InterruptedException {
        if (built != null) {
            return new BuiltImage(built.output, built.archive, built.digest, 0, false);
        }
        long started = System.nanoTime();
        Files.createDirectories(OUTPUT);
        Path marker = OUTPUT.resolve("nightshift-image.run");
        boolean here = false;
        try (FileChannel lock = FileChannel.open(OUTPUT.resolve("build-image.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock held = lock.lock()) {
            if (!(Files.exists(marker) && Files.readString(marker, StandardCharsets.UTF_8).equals(RUN)
                    && Files.exists(OUTPUT.resolve("nightshift-image.tar")))) {
                Files.deleteIfExists(marker);
                build();
                Files.writeString(marker, RUN, StandardCharsets.UTF_8);
                here = true;
            }
        }
        built = new BuiltImage(OUTPUT, OUTPUT.resolve("nightshift-image.tar"),
                Files.readString(OUTPUT.resolve("nightshift-image.digest"), StandardCharsets.UTF_8).trim(),
                (System.nanoTime() - started) / 1e9, here);
        return built;
    }

    private static void build() throws IOException, InterruptedException {
        Path log = OUTPUT.resolve("build-image.out");
        Process build = new ProcessBuilder(BUILD_IMAGE.toString(), "--no-maven", "--output", OUTPUT.toString())
                .directory(BUILD_IMAGE.getParent().toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean done = build.waitFor(10, TimeUnit.MINUTES);
        if (!done) {
            build.destroyForcibly();
        }
        if (!done || build.exitValue() != 0) {
            throw new AssertionError(BUILD_IMAGE + " --no-maven --output " + OUTPUT + (done ? " exited " + build.exitValue() : " took over 10 min")
                    + ":\n" + Files.readString(log, StandardCharsets.UTF_8));
        }
    }
}

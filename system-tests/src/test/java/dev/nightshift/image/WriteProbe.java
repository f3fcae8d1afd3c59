package dev.nightshift.image;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Run inside the image ({@code podman exec … java -cp /probe dev.nightshift.image.WriteProbe DIR…}), which has no shell
 * and no {@code id} or {@code touch}: prints the process's user ids as the kernel has them, then, for each directory,
 * whether a file could be created there, one line each: {@code DIR<TAB>written<TAB>owner} or
 * {@code DIR<TAB>refused<TAB>why<TAB>owner}, where owner is the directory's {@code uid:gid mode}.
 * Also the encodings the JVM took from the locale: {@code encoding<TAB>native.encoding<TAB>sun.jnu.encoding}. Only the
 * JDK's base module: it runs on the image's own runtime.
 */
public final class WriteProbe {

    private WriteProbe() {
    }

    public static void main(String[] args) throws IOException {
        // "Uid:\treal\teffective\tsaved\tfilesystem"
        Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("Uid:") || l.startsWith("Gid:"))
                .forEach(System.out::println);
        // What the JVM took from the locale (LANG): how it encodes file names and what it prints.
        System.out.println("encoding\t" + System.getProperty("native.encoding") + "\t" + System.getProperty("sun.jnu.encoding"));
        for (String dir : args) {
            Path file = Path.of(dir, "nightshift-write-probe");
            String outcome;
            try {
                Files.writeString(file, "written by the image test");
                Files.delete(file);
                outcome = "written";
            } catch (IOException e) {
                outcome = "refused\t" + e;
            }
            System.out.println(dir + "\t" + outcome + "\t" + owner(Path.of(dir)));
        }
    }

    private static String owner(Path dir) {
        try {
            return Files.getAttribute(dir, "unix:uid") + ":" + Files.getAttribute(dir, "unix:gid") + " "
                    + Integer.toOctalString((Integer) Files.getAttribute(dir, "unix:mode") & 07777);
        } catch (IOException | UnsupportedOperationException e) {
            return "(" + e + ")";
        }
    }
}

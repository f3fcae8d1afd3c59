package dev.nightshift.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The start of the command line with which a system test runs the shaded jar in a process of its own: this JVM's
 * {@code java} and the tests' JVM options ({@code test.jvmOptions} in the parent pom, passed on by failsafe as
 * {@code nightshift.jarJvmOptions}: the client compiler only and the serial collector, which halve the CPU a short run
 * takes on two cores). The options change how fast the jar runs, never what it does; the image test runs the image
 * with its own JVM options.
 */
public final class JavaCommand {

    private JavaCommand() {
    }

    /** {@code java}, the tests' JVM options and {@code -jar jar}: add the command and its arguments. */
    public static List<String> jar(Path jar) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String options = System.getProperty("nightshift.jarJvmOptions", "").strip();
        if (!options.isEmpty()) {
            command.addAll(Arrays.asList(options.split("\\s+")));
        }
        command.add("-jar");
        command.add(jar.toString());
        return command;
    }
}

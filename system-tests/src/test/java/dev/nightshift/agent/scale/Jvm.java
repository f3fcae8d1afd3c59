package dev.nightshift.agent.scale;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the JDK's tools and {@code /proc} say of another JVM: heap after a full GC, its live objects, its CPU time, its
 * resident memory.
 */
final class Jvm {

    private static final Pattern USED = Pattern.compile("total (\\d+)K, used (\\d+)K");
    /** Linux's USER_HZ, the unit of {@code /proc/PID/stat}'s times, on every architecture the JDK runs on here. */
    private static final double TICKS_PER_SECOND = 100;

    private Jvm() {
    }

    /** A full GC, then the heap in use: the used figures of {@code GC.heap_info}'s generations, in bytes. */
    static long heapAfterFullGc(long pid) throws IOException, InterruptedException {
        run("jcmd", Long.toString(pid), "GC.run");
        long used = 0;
        for (String line : run("jcmd", Long.toString(pid), "GC.heap_info").lines().toList()) {
            if (line.contains("Metaspace") || line.contains("class space")) {
                continue;
            }
            Matcher m = USED.matcher(line);
            if (m.find()) {
                used += Long.parseLong(m.group(2)) * 1024;
            }
        }
        return used;
    }

    /**
     * The process's resident memory now and at its peak ({@code VmRSS}, {@code VmHWM} of {@code /proc/PID/status}),
     * and the heap the JVM has committed ({@code GC.heap_info}'s totals): what a container's memory limit must hold.
     */
    record Memory(long rss, long peakRss, long heapCommitted) {
    }

    static Memory memory(long pid) throws IOException, InterruptedException {
        long rss = -1;
        long peak = -1;
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"), StandardCharsets.UTF_8)) {
            if (line.startsWith("VmRSS:")) {
                rss = kibibytes(line);
            } else if (line.startsWith("VmHWM:")) {
                peak = kibibytes(line);
            }
        }
        long committed = 0;
        for (String line : run("jcmd", Long.toString(pid), "GC.heap_info").lines().toList()) {
            if (line.contains("Metaspace") || line.contains("class space")) {
                continue;
            }
            Matcher m = USED.matcher(line);
            if (m.find()) {
                committed += Long.parseLong(m.group(1)) * 1024;
            }
        }
        return new Memory(rss, peak, committed);
    }

    /** {@code "VmRSS:\t  123456 kB"} in bytes. */
    private static long kibibytes(String statusLine) {
        return Long.parseLong(statusLine.replaceAll("[^0-9]", "")) * 1024;
    }

    /** {@code jmap -histo:live} (a full GC first), its first {@code lines} lines. */
    static String histogram(long pid, int lines) throws IOException, InterruptedException {
        List<String> all = run("jmap", "-histo:live", Long.toString(pid)).lines().toList();
        return String.join("\n", all.subList(0, Math.min(lines, all.size())));
    }

    /** User plus system CPU time the process has used so far, in seconds (from {@code /proc/PID/stat}). */
    static double cpuSeconds(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
        // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, utime 14, stime 15.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
    }

    /** This JVM's own CPU time, in seconds. */
    static double ownCpuSeconds() throws IOException {
        return cpuSeconds(ProcessHandle.current().pid());
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + new String(out, StandardCharsets.UTF_8));
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}

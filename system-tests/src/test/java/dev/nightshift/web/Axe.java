package dev.nightshift.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * axe-core, the accessibility engine, run in the page as it is: installed with npm into
 * {@code target/tools/} when missing, as {@code MachineApiLintIT} installs its linter (npm's cache
 * serves it again offline); without node and npm the test fails, never skips. The script is given
 * to the page through WebDriver, which the page's Content-Security-Policy does not govern, so the
 * page itself keeps {@code script-src 'self'}.
 */
final class Axe {

    /** Pinned: a new release may add rules. */
    static final String VERSION = "4.14.1";
    private static final Path TOOL = Path.of("target/tools/axe-core-" + VERSION).toAbsolutePath();

    /** A rule the page breaks: its id, impact (minor, moderate, serious, critical), help text and the elements. */
    record Violation(String id, String impact, String help, List<String> targets) {
    }

    private final String source;

    private Axe(String source) {
        this.source = source;
    }

    /** axe-core's script, installed first when missing. */
    static Axe installed() throws Exception {
        Path script = script(TOOL);
        if (!Files.isRegularFile(script)) {
            Files.createDirectories(TOOL.getParent());
            Path staging = Files.createTempDirectory(TOOL.getParent(), "staging-axe-core-");
            try {
                npm(staging, "install", "--prefix", staging.toString(), "--no-save", "--no-package-lock", "--no-audit", "--no-fund",
                        "--prefer-offline", "axe-core@" + VERSION);
                assertThat(script(staging)).as("npm installed no axe.min.js").isRegularFile();
                // Whole or not at all: a run stopped half-way leaves no half-installed tool behind.
                Files.move(staging, TOOL, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                if (!Files.isRegularFile(script)) { // else another test JVM installed it first
                    throw e;
                }
            } finally {
                if (Files.exists(staging)) {
                    try (Stream<Path> paths = Files.walk(staging)) {
                        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                            Files.deleteIfExists(p);
                        }
                    }
                }
            }
        }
        return new Axe(Files.readString(script, StandardCharsets.UTF_8));
    }

    private static Path script(Path prefix) {
        return prefix.resolve("node_modules/axe-core/axe.min.js");
    }

    /** The WCAG 2.x A and AA rules and axe's best practices, run on the page the browser shows now. */
    @SuppressWarnings("unchecked")
    List<Violation> violations(Browser browser) {
        browser.script(source + "\n;window.__axeLoaded = true;");
        Object result = browser.driver().executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']}})
                  .then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                      targets: v.nodes.slice(0, 5).map(n => n.target.join(' '))}))))
                  .catch(e => done([{id: 'axe-error', impact: 'critical', help: String(e), targets: []}]));
                """);
        return ((List<Map<String, Object>>) result).stream().map(v -> new Violation((String) v.get("id"), (String) v.get("impact"),
                (String) v.get("help"), (List<String>) v.get("targets"))).toList();
    }

    private static void npm(Path dir, String... args) throws Exception {
        Path out = Files.createTempFile(dir.getParent(), "npm", ".out");
        try {
            Process process;
            try {
                process = new ProcessBuilder(Stream.concat(Stream.of("npm"), Stream.of(args)).toList()).directory(dir.toFile())
                        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            } catch (IOException e) {
                throw new AssertionError("npm cannot be run (" + e.getMessage() + "): ./verify installs node and npm", e);
            }
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly().waitFor();
                throw new AssertionError("npm install axe-core@" + VERSION + " did not end within 2 minutes");
            }
            assertThat(process.exitValue()).as("npm install axe-core@%s:%n%s", VERSION, Files.readString(out, StandardCharsets.UTF_8))
                    .isZero();
        } finally {
            Files.deleteIfExists(out);
        }
    }
}

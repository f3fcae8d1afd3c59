package dev.nightshift.agent.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The dashboard's and the alert rules' PromQL, as the repository holds them. */
final class MonitoringFiles {

    /** The project root: the agent module's parent. */
    static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    static final Path DASHBOARD = ROOT.resolve("grafana/dashboards/nightshift.json");
    static final Path RULES = ROOT.resolve("grafana/alerts/nightshift-rules.yaml");
    static final Path RULE_TESTS = ROOT.resolve("grafana/alerts/nightshift-rules-test.yaml");
    static final Path PROMETHEUS_RULE = ROOT.resolve("manifests/monitoring/prometheusrule.yaml");

    /** One expression and where it comes from, for messages. */
    record Expression(String source, String promql) {
    }

    private MonitoringFiles() {
    }

    static JsonNode dashboard() throws IOException {
        return new ObjectMapper().readTree(DASHBOARD.toFile());
    }

    /** Every panel target's expression, rows' nested panels included. */
    static List<Expression> dashboardExpressions() throws IOException {
        List<Expression> all = new ArrayList<>();
        collect(dashboard().path("panels"), all);
        return all;
    }

    private static void collect(JsonNode panels, List<Expression> into) {
        for (JsonNode panel : panels) {
            for (JsonNode target : panel.path("targets")) {
                into.add(new Expression("panel \"" + panel.path("title").asText() + "\" " + target.path("refId").asText(),
                        target.path("expr").asText()));
            }
            collect(panel.path("panels"), into);
        }
    }

    /**
     * A dashboard expression as Grafana would send it with every pool selected: the variables
     * replaced by what Grafana puts there.
     */
    static String resolved(String promql) {
        return promql.replace("$__rate_interval", "1m").replace("$__interval", "15s").replace("$__range", "1h")
                .replace("$pool", ".*");
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> ruleGroups(Path file) throws IOException {
        Map<String, Object> doc = new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(file));
        if (doc.containsKey("spec")) {
            doc = (Map<String, Object>) doc.get("spec");
        }
        return (List<Map<String, Object>>) doc.get("groups");
    }

    @SuppressWarnings("unchecked")
    static List<Expression> alertExpressions() throws IOException {
        List<Expression> all = new ArrayList<>();
        for (Map<String, Object> group : ruleGroups(RULES)) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                all.add(new Expression("alert " + rule.get("alert"), ((String) rule.get("expr")).strip()));
            }
        }
        return all;
    }

    private static final Pattern STRINGS = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'");
    private static final Pattern MATCHERS = Pattern.compile("\\{[^}]*}");
    private static final Pattern RANGES = Pattern.compile("\\[[^]]*]");
    private static final Pattern GROUPING = Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on",
            "ignoring", "group_left", "group_right", "inf", "nan");

    /**
     * The metric names an expression reads: identifiers that are not functions (followed by a
     * parenthesis), keywords, label names in matchers or grouping clauses, strings or durations.
     */
    static Set<String> metricNames(String promql) {
        String s = STRINGS.matcher(promql).replaceAll("\"\"");
        s = MATCHERS.matcher(s).replaceAll(" ");
        s = RANGES.matcher(s).replaceAll(" ");
        s = GROUPING.matcher(s).replaceAll(" ");
        Set<String> names = new LinkedHashSet<>();
        Matcher m = IDENTIFIER.matcher(s);
        while (m.find()) {
            String id = m.group();
            int after = m.end();
            while (after < s.length() && Character.isWhitespace(s.charAt(after))) {
                after++;
            }
            boolean function = after < s.length() && s.charAt(after) == '(';
            boolean number = m.start() > 0 && (Character.isDigit(s.charAt(m.start() - 1)) || s.charAt(m.start() - 1) == '.');
            if (!function && !number && !KEYWORDS.contains(id.toLowerCase(java.util.Locale.ROOT))) {
                names.add(id);
            }
        }
        return names;
    }

    /** The metric names in an exposition in the Prometheus text format. */
    static Set<String> exportedNames(String exposition) {
        Set<String> names = new LinkedHashSet<>();
        for (String line : exposition.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = IDENTIFIER.matcher(line);
            if (m.lookingAt()) {
                names.add(m.group());
            }
        }
        return names;
    }
}

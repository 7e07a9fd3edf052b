package dev.ateom.microvm.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The harness's two charts as hand-written SVG (no plotting dependency): resume's steps, and latency vs concurrency. */
final class SvgCharts {
    private static final String[] PALETTE = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
        "#ff9da7", "#9c755f", "#bab0ac", "#1f77b4", "#8c564b"};
    private static final String FONT = "font-family=\"sans-serif\" font-size=\"12\"";

    private SvgCharts() {
    }

    /**
     * Per backend one bar of resume's steps (p50, in the order the daemon reports them; not its {@code total}) stacked, plus what the API
     * answer took beyond their sum; a black tick marks the API p50. Each backend has its own scale (a TCG guest's
     * milliseconds would flatten the stand-in's), printed at the bar's end.
     */
    static String resumeSteps(List<LifecycleResult> lifecycles) {
        Set<String> stepNames = new LinkedHashSet<>();
        lifecycles.forEach(l -> stepNames.addAll(l.operations().contains("resume") ? stepsWithoutTotal(l).keySet() : Set.of()));
        stepNames.add("other (API − steps)");
        Map<String, String> colors = new LinkedHashMap<>();
        int c = 0;
        for (String step : stepNames) colors.put(step, PALETTE[c++ % PALETTE.length]);
        int left = 70;
        int barWidth = 640;
        int rowHeight = 56;
        int top = 40;
        int legendTop = top + rowHeight * lifecycles.size() + 10;
        int legendRows = (colors.size() + 3) / 4;
        int height = legendTop + legendRows * 20 + 10;
        StringBuilder svg = header(800, height, "resume: per-step p50 (ms), stacked; tick = API p50");
        int y = top;
        for (LifecycleResult lifecycle : lifecycles) {
            if (!lifecycle.operations().contains("resume")) continue;
            Map<String, Double> steps = stepsWithoutTotal(lifecycle);
            double api = lifecycle.api("resume").p(50);
            double sum = steps.values().stream().mapToDouble(Double::doubleValue).sum();
            if (api > sum) steps.put("other (API − steps)", api - sum);
            double scale = barWidth / Math.max(1, Math.max(api, steps.values().stream().mapToDouble(Double::doubleValue).sum()));
            svg.append(text(8, y + 22, lifecycle.backend(), "start"));
            double x = left;
            for (Map.Entry<String, Double> step : steps.entrySet()) {
                double w = step.getValue() * scale;
                svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"30\" fill=\"%s\"><title>%s %.0f ms</title></rect>%n",
                        x, y + 4, w, colors.get(step.getKey()), step.getKey(), step.getValue()));
                if (w > 46) svg.append(text(x + w / 2, y + 24, String.format(Locale.ROOT, "%.0f", step.getValue()), "middle", "#fff"));
                x += w;
            }
            double tick = left + api * scale;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" stroke-width=\"2\"/>%n",
                    tick, y, tick, y + 38));
            svg.append(text(left, y + 50, "0", "start"));
            svg.append(text(x, y + 50, String.format(Locale.ROOT, "%.0f ms (API p50 %.0f ms)", x == left ? 0 : (x - left) / scale, api), "end"));
            y += rowHeight;
        }
        legend(svg, colors, legendTop);
        return svg.append("</svg>\n").toString();
    }

    /** Resume's step p50s without the daemon's own {@code total} (the sum of them, which would count twice). */
    private static Map<String, Double> stepsWithoutTotal(LifecycleResult lifecycle) {
        Map<String, Double> steps = new LinkedHashMap<>(lifecycle.stepMedians("resume"));
        steps.remove("total");
        return steps;
    }

    /** Latency (p99 solid, p50 dashed) of create, suspend and resume against the number of sandboxes at once. */
    static String scaling(ScalingResult scaling) {
        List<Integer> levels = new ArrayList<>(new LinkedHashSet<>(scaling.rows().stream().map(ScalingResult.Row::concurrent).toList()));
        Map<String, String> colors = new LinkedHashMap<>();
        int c = 0;
        for (ScalingResult.Row row : scaling.rows()) colors.putIfAbsent(row.op(), PALETTE[c++ % PALETTE.length]);
        double maxMs = scaling.rows().stream().flatMap(r -> r.latency().stream()).mapToDouble(l -> l.p(99)).max().orElse(1);
        double yMax = niceCeiling(maxMs);
        int left = 70;
        int top = 40;
        int plotW = 600;
        int plotH = 300;
        StringBuilder svg = header(800, top + plotH + 80, scaling.backend() + " backend: latency vs sandboxes at once (p99 solid, p50 dashed)");
        svg.append(String.format("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>%n", left, top, plotW, plotH));
        for (int t = 0; t <= 4; t++) {
            double ms = yMax * t / 4;
            double ty = top + plotH - plotH * t / 4.0;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n", left, ty, left + plotW, ty));
            svg.append(text(left - 6, ty + 4, String.format(Locale.ROOT, "%.0f", ms), "end"));
        }
        svg.append(text(16, top + plotH / 2.0, "ms", "start"));
        for (int i = 0; i < levels.size(); i++) {
            svg.append(text(xOf(i, levels.size(), left, plotW), top + plotH + 18, String.valueOf(levels.get(i)), "middle"));
        }
        svg.append(text(left + plotW / 2.0, top + plotH + 38, "sandboxes at once", "middle"));
        for (Map.Entry<String, String> op : colors.entrySet()) {
            for (int percentile : new int[] {99, 50}) {
                StringBuilder points = new StringBuilder();
                for (ScalingResult.Row row : scaling.rows()) {
                    if (!row.op().equals(op.getKey()) || row.latency().isEmpty()) continue;
                    double ms = row.latency().get().p(percentile);
                    double px = xOf(levels.indexOf(row.concurrent()), levels.size(), left, plotW);
                    double py = top + plotH - plotH * ms / yMax;
                    points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
                    svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s %d at once: p%d %.0f ms</title></circle>%n",
                            px, py, op.getValue(), op.getKey(), row.concurrent(), percentile, ms));
                }
                svg.append(String.format("<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>%n", points.toString().strip(),
                        op.getValue(), percentile == 50 ? " stroke-dasharray=\"5,4\"" : ""));
            }
        }
        legend(svg, colors, top + plotH + 50);
        return svg.append("</svg>\n").toString();
    }

    private static double xOf(int index, int count, int left, int plotW) {
        return count == 1 ? left + plotW / 2.0 : left + 30 + (plotW - 60) * index / (double) (count - 1);
    }

    /** The smallest 1, 2 or 5 × 10^n at or above {@code value}. */
    private static double niceCeiling(double value) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(Math.max(value, 1))));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * magnitude >= value) return step * magnitude;
        }
        return 10 * magnitude;
    }

    private static StringBuilder header(int width, int height, String title) {
        StringBuilder svg = new StringBuilder(String.format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">%n",
                width, height, width, height));
        svg.append(String.format("<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>%n", width, height));
        svg.append(String.format("<text x=\"8\" y=\"20\" %s font-weight=\"bold\">%s</text>%n", FONT, escape(title)));
        return svg;
    }

    private static void legend(StringBuilder svg, Map<String, String> colors, int top) {
        int i = 0;
        for (Map.Entry<String, String> entry : colors.entrySet()) {
            int x = 8 + (i % 4) * 195;
            int y = top + (i / 4) * 20;
            svg.append(String.format("<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n", x, y, entry.getValue()));
            svg.append(text(x + 16, y + 11, entry.getKey(), "start"));
            i++;
        }
    }

    private static String text(double x, double y, String content, String anchor) {
        return text(x, y, content, anchor, "#000");
    }

    private static String text(double x, double y, String content, String anchor, String fill) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" %s text-anchor=\"%s\" fill=\"%s\">%s</text>%n", x, y, FONT, anchor, fill,
                escape(content));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

package io.grove.bench;

import java.awt.AWTError;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/**
 * A bar chart of a summary table ({@link Summary}): one group of bars per scenario, one bar per comparison (Grove /
 * peer) and thread count (0 where it did not run), drawn headless with XChart into {@code <csv name>-<family>.png}
 * next to the CSV.
 */
final class RatioChart {
    private RatioChart() {}

    /** Draws the chart and returns its file, or {@code null} (and says why on stderr) if it could not be drawn. */
    static Path draw(Path csv, String family, List<String> rows, List<Scenario.Comparison> columns,
            List<double[]> ratios) {
        String name = csv.getFileName().toString();
        Path png = csv.resolveSibling(name.substring(0, name.length() - ".csv".length()) + "-" + family + ".png");
        try {
            List<String> scenarios = rows.stream().map(r -> r.substring(0, r.indexOf(" | "))).distinct().toList();
            List<String> threads = rows.stream().map(r -> r.substring(r.indexOf(" | ") + 3)).distinct().toList();
            CategoryChart chart = new CategoryChartBuilder().width(Math.max(700, 130 * scenarios.size())).height(520)
                    .title(family + ": Grove's throughput / peer's (above 1: Grove faster)").xAxisTitle("scenario")
                    .yAxisTitle("ratio").build();
            chart.getStyler().setXAxisLabelRotation(90);
            chart.getStyler().setYAxisMin(0.0);
            for (Scenario.Comparison c : columns) {
                int column = columns.indexOf(c);
                for (String t : threads) {
                    List<Double> ys = new ArrayList<>();
                    for (String scenario : scenarios) {
                        int row = rows.indexOf(scenario + " | " + t);
                        double ratio = row < 0 ? Double.NaN : ratios.get(row)[column];
                        ys.add(Double.isNaN(ratio) ? 0.0 : ratio);
                    }
                    chart.addSeries(c + ", " + t + (t.equals("1") ? " thread" : " threads"), scenarios, ys);
                }
            }
            BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
            return png;
        } catch (Exception | AWTError | LinkageError e) { // e.g. no fonts on a bare headless machine
            System.err.println("grove bench summary: no chart for " + family + " (" + e + ")");
            return null;
        }
    }
}

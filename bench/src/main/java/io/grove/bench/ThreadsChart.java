package io.grove.bench;

import java.awt.AWTError;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Throughput against threads for one family of a result CSV ({@link Summary}): one panel per scenario, one line per
 * contender (median ops/s at each thread count it ran), drawn headless with XChart into
 * {@code <csv name>-<family>-threads.png} next to the CSV.
 */
final class ThreadsChart {
    private static final int PANEL_WIDTH = 420;
    private static final int PANEL_HEIGHT = 300;
    private static final int COLUMNS = 3;
    /** A contender's colour, by its place among its family's contenders, so that it is the same in every panel. */
    private static final Color[] PALETTE = {new Color(0x1F77B4), new Color(0xFF7F0E), new Color(0x2CA02C),
        new Color(0xD62728), new Color(0x9467BD), new Color(0x8C564B), new Color(0xE377C2), new Color(0x7F7F7F),
        new Color(0xBCBD22), new Color(0x17BECF)};

    private ThreadsChart() {}

    private static List<Contender<?>> family(Contender<?> c) {
        return Registry.CONTENDERS.stream().filter(o -> o.family().name().equals(c.family().name())).toList();
    }

    /** Draws the chart and returns its file, or {@code null} (and says why on stderr) if it could not be drawn. */
    static Path draw(Path csv, String family, Report report, List<Scenario> scenarios) {
        String name = csv.getFileName().toString();
        Path png = csv.resolveSibling(name.substring(0, name.length() - ".csv".length()) + "-" + family
                + "-threads.png");
        List<Integer> threads = report.threadsRun();
        List<List<Contender<?>>> contenders = report.contendersRun(scenarios);
        int columns = Math.min(COLUMNS, scenarios.size());
        int rows = (scenarios.size() + columns - 1) / columns;
        try {
            BufferedImage image = new BufferedImage(columns * PANEL_WIDTH, rows * PANEL_HEIGHT,
                    BufferedImage.TYPE_INT_RGB);
            Graphics2D g = image.createGraphics();
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            for (int i = 0; i < scenarios.size(); i++) {
                Scenario s = scenarios.get(i);
                XYChart chart = new XYChartBuilder().width(PANEL_WIDTH).height(PANEL_HEIGHT).title(s.name())
                        .xAxisTitle("threads").yAxisTitle("ops/s").build();
                chart.getStyler().setYAxisMin(0.0);
                chart.getStyler().setXAxisDecimalPattern("0");
                chart.getStyler().setYAxisDecimalPattern("#,###");
                for (Contender<?> c : contenders.get(i)) {
                    List<Double> xs = new ArrayList<>();
                    List<Double> ys = new ArrayList<>();
                    for (int t : threads) {
                        double ops = report.medianOpsPerSec(s.name(), c.name(), t);
                        if (!Double.isNaN(ops)) {
                            xs.add((double) t);
                            ys.add(ops);
                        }
                    }
                    if (!xs.isEmpty()) {
                        Color color = PALETTE[family(c).indexOf(c) % PALETTE.length];
                        XYSeries series = chart.addSeries(c.name(), xs, ys);
                        series.setMarker(SeriesMarkers.CIRCLE);
                        series.setLineColor(color);
                        series.setMarkerColor(color);
                    }
                }
                Graphics2D panel = (Graphics2D) g.create((i % columns) * PANEL_WIDTH, (i / columns) * PANEL_HEIGHT,
                        PANEL_WIDTH, PANEL_HEIGHT);
                chart.paint(panel, PANEL_WIDTH, PANEL_HEIGHT);
                panel.dispose();
            }
            g.dispose();
            ImageIO.write(image, "png", png.toFile());
            return png;
        } catch (Exception | AWTError | LinkageError e) { // e.g. no fonts on a bare headless machine
            System.err.println("grove bench summary: no threads chart for " + family + " (" + e + ")");
            return null;
        }
    }
}

package io.grove.internal.tool;

import io.grove.GroveFileException;
import io.grove.MemoryFootprint;
import io.grove.internal.file.FileHeader;
import io.grove.internal.file.MappedFile;
import io.grove.internal.file.ProcessTable;
import io.grove.internal.hash.OffHeapHashMap;
import io.grove.internal.hash.TableCheck;
import io.grove.internal.memory.Pool;
import io.grove.internal.memory.PoolCheck;
import io.grove.serial.Serializers;
import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * {@code ./grove inspect FILE} and {@code ./grove verify FILE}: what a Grove file holds, and whether it is sound.
 * Both map the file read-only and write nothing, so they may run while a map has the file open (their figures are
 * then those of a moment, and a walk may meet a change in progress).
 *
 * <p>{@code verify} checks the header (magic, version, checksum, length), that the file was closed cleanly, and
 * walks the whole table ({@link TableCheck}); it prints each problem and exits with status 0 only if there is none,
 * 1 if there are problems, 2 on a usage error.
 *
 * <p>{@code ./grove salvage FILE NEWFILE}: for a file that an open refuses as damaged beyond what its recovery
 * repairs. Copies every entry of {@code FILE} that the walk of {@code verify} finds sound into a new file
 * {@code NEWFILE} with the same settings (so a map opens it with the builder that made {@code FILE}), forced to the
 * device, and prints each problem of the walk: the entries it names are not copied. {@code FILE} is read only.
 * Refused while a process has {@code FILE} open, or if {@code NEWFILE} exists. Exits with status 0 if the walk found
 * no problem, 1 if it did (the new file holds what could be read) or if nothing could be copied, 2 on a usage error.
 */
public final class FileTool {
    private FileTool() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the tool; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 3 && args[0].equals("salvage")) {
            return salvage(Path.of(args[1]), Path.of(args[2]), out);
        }
        if (args.length != 2 || !(args[0].equals("inspect") || args[0].equals("verify"))) {
            err.println("usage: grove inspect FILE | grove verify FILE | grove salvage FILE NEWFILE");
            return 2;
        }
        boolean verify = args[0].equals("verify");
        try (MappedFile file = MappedFile.openReadOnly(Path.of(args[1])); Pool pool = poolOf(file)) {
            TableCheck.Report table = pool.root() == 0 ? null : TableCheck.check(pool, pool.root());
            if (!verify) {
                inspect(out, file, pool, table);
                return 0;
            }
            int problems = 0;
            if (!pool.closedCleanly()) {
                List<ProcessTable.Process> open = file.openIn();
                out.println(!open.isEmpty()
                        ? "problem: a map has the file open (" + processes(open) + "): it may change while read"
                        : pool.recoveryCause() == null ? "problem: no map ever closed the file"
                                : "problem: the file " + pool.recoveryCause() + "; opening it recovers it");
                problems++;
            }
            if (pool.closedCleanly()) { // else the allocator state recorded is stale until a reopen recovers it
                for (String p : PoolCheck.check(pool)) {
                    out.println("problem: " + p);
                    problems++;
                }
            }
            if (table == null) {
                out.println("problem: the file holds no table (no root reference)");
                problems++;
            } else {
                for (String p : table.problems()) {
                    out.println("problem: " + p);
                }
                problems += table.problems().size();
                if (table.cellBytes() != 0 && table.cellBytes() != file.header().cellBytes()) {
                    out.println("problem: the table's cells have " + table.cellBytes() + " bytes, the header records "
                            + file.header().cellBytes());
                    problems++;
                }
            }
            out.println(problems == 0 ? file.name() + ": sound (format " + FileHeader.FORMAT_VERSION + ", "
                    + (table == null ? 0 : table.entries()) + " entries)"
                    : file.name() + ": " + problems + " problem(s)");
            return problems == 0 ? 0 : 1;
        } catch (GroveFileException e) {
            out.println("problem: " + e.getMessage());
            return 1;
        }
    }

    private static int salvage(Path damaged, Path salvaged, PrintStream out) {
        if (Files.exists(salvaged, LinkOption.NOFOLLOW_LINKS)) {
            out.println("problem: " + salvaged.toAbsolutePath() + " exists: the salvage writes a new file");
            return 1;
        }
        try (MappedFile file = MappedFile.openReadOnly(damaged); Pool pool = poolOf(file)) {
            List<ProcessTable.Process> open = file.openIn();
            if (!open.isEmpty()) {
                out.println("problem: " + file.name() + " is open in " + processes(open) + ": close every map on it"
                        + " first");
                return 1;
            }
            if (pool.root() == 0) {
                out.println("problem: " + file.name() + " holds no table (no root reference): nothing to salvage");
                return 1;
            }
            FileHeader h = file.header();
            FileHeader settings = new FileHeader(h.maxFileSize(), h.blockSize(), h.cellBytes(), h.maxEntries(),
                    h.maxBytes(), h.keySerializer(), h.valueSerializer(), System.currentTimeMillis());
            long counted = TableCheck.counted(pool, pool.root());
            // sized for the entries the segments count, which a damaged record may overstate: no entry takes less
            // than a cell or 40 bytes
            long expected = Math.min(counted, h.blockAreaSize() / Math.max(h.cellBytes(), 40));
            TableCheck.Report report;
            long[] copied = {0};
            try (OffHeapHashMap<byte[], byte[]> copy = OffHeapHashMap.inFile(salvaged, settings, Serializers.bytes(),
                    Serializers.bytes(), expected,
                    new OffHeapHashMap.Bounds<>(h.maxEntries(), h.maxBytes(), null, false),
                    new OffHeapHashMap.Syncing(true, 0), 0)) {
                report = TableCheck.salvage(pool, pool.root(), (key, value) -> { // a key's second link: not copied
                    if (copy.putIfAbsent(key.toArray(ValueLayout.JAVA_BYTE), value.toArray(ValueLayout.JAVA_BYTE))
                            == null) {
                        copied[0]++;
                    }
                });
            }
            for (String p : report.problems()) {
                out.println("problem: " + p);
            }
            out.println(file.name() + ": " + copied[0] + " entries copied to " + salvaged.toAbsolutePath()
                    + " (its segments count " + counted + "), " + report.problems().size() + " problem(s)");
            return report.problems().isEmpty() ? 0 : 1;
        } catch (GroveFileException e) {
            out.println("problem: " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            out.println("problem: the copy failed, " + salvaged.toAbsolutePath() + " holds part of it: " + e);
            return 1;
        }
    }

    /** The pool of {@code file}, opened read-only, to read only. */
    private static Pool poolOf(MappedFile file) {
        return Pool.forReading(file.header().blockSize(), file.blocks(), file.state(), file.counts(), () -> { });
    }

    /** The first of {@code processes}, and how many more. */
    private static String processes(List<ProcessTable.Process> processes) {
        return processes.getFirst() + (processes.size() > 1 ? ", and " + (processes.size() - 1) + " more" : "");
    }

    private static void inspect(PrintStream out, MappedFile file, Pool pool, TableCheck.Report table) {
        FileHeader h = file.header();
        MemoryFootprint f = pool.footprint();
        out.println("file            " + file.name());
        out.println("format version  " + FileHeader.FORMAT_VERSION);
        out.println("created         " + Instant.ofEpochMilli(h.createdMillis()));
        out.println("closed cleanly  " + (pool.closedCleanly() ? "yes" + (pool.closedForced() ? ", forced" : "")
                : "no: it " + pool.recoveryCause()));
        List<ProcessTable.Process> open = file.openIn();
        out.println("open now        " + (open.isEmpty() ? "false" : "true, in " + open.size() + " process(es)"));
        for (ProcessTable.Process p : open) {
            out.println("  " + p);
        }
        for (ProcessTable.Process p : file.endedWithoutClosing()) {
            out.println("ended without closing it: " + p);
        }
        out.println("maxFileSize     " + h.maxFileSize());
        out.println("blockSize       " + h.blockSize());
        out.println("cellBytes       " + h.cellBytes() + (h.cellBytes() == Long.BYTES ? " (slots only)"
                : " (entries in cells: inlineEntries)"));
        out.println("maximumSize     " + (h.maxEntries() == Long.MAX_VALUE ? "unbounded" : h.maxEntries()));
        out.println("maximumBytes    " + (h.maxBytes() == Long.MAX_VALUE ? "unbounded" : h.maxBytes()));
        out.println("key serializer  " + h.keySerializer());
        out.println("value serializer " + h.valueSerializer());
        out.println("bytes used      " + f.allocatedBytes() + " of " + h.blockAreaSize() + " (live " + f.liveBytes()
                + " in " + f.liveSlices() + " slices, free for reuse " + f.freeBytes() + ")");
        if (table != null) {
            out.println("segments        " + table.segments() + ", " + table.slots() + " slots ("
                    + (table.slots() == 0 ? 0 : table.entries() * 100 / table.slots()) + "% occupied)");
            out.println("entries         " + table.entries() + " (" + table.bytes() + " bytes)");
        }
    }
}

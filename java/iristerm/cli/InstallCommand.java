package iristerm.cli;

import iristerm.iris.ClassInstaller;
import iristerm.iris.NativeIrisCalls;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * Loads and compiles the Terminal classes into the configured IRIS namespace over the Native API.
 * For the IRIS-hosted setup (web application, External Java Server) use zpm or ./install instead.
 */
@Command(name = "install", mixinStandardHelpOptions = true,
        description = {"Load and compile the Terminal.* classes (bundled in this jar) into an IRIS namespace.",
                "Needs --iris-host (or IRIS_HOSTNAME) and a user allowed to compile there. Safe to repeat."})
final class InstallCommand implements Callable<Integer> {
    @Mixin
    IrisOptions iris;

    @Option(names = "--list", description = "Only list the classes that would be loaded.")
    boolean listOnly;

    @Override
    public Integer call() {
        List<ClassInstaller.Source> sources = ClassInstaller.bundled();
        if (listOnly) {
            sources.forEach(s -> System.out.println(s.className()));
            return 0;
        }
        if (!iris.configured()) {
            System.err.println("install needs IRIS: give --iris-host (or IRIS_HOSTNAME), and IRIS_USERNAME/IRIS_PASSWORD");
            return 2;
        }
        try (NativeIrisCalls calls = new NativeIrisCalls(iris.config())) {
            ClassInstaller.Report r = calls.withConnection(c -> ClassInstaller.install(c, iris.namespace, sources));
            System.out.println("IRIS " + calls.describe() + ": loaded " + r.loaded().size() + " of " + sources.size()
                    + " classes" + (r.compiled() ? ", compiled" : ""));
            r.loaded().forEach(name -> System.out.println("  " + name));
            if (r.failure() != null) {
                System.err.println("install failed: " + r.failure());
                return 1;
            }
            return 0;
        }
    }
}

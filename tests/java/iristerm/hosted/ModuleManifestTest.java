package iristerm.hosted;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * module.xml against the repository: well formed, every resource and invoked method exists in cls/,
 * the copied jar is the one the build produces, the test suite directory exists, and the web
 * application the installer creates uses only real Security.Applications properties.
 */
class ModuleManifestTest {
    /** Security.Applications properties (IRIS class reference) the installer may set. */
    private static final Set<String> APPLICATION_PROPERTIES = Set.of("Name", "Description", "NameSpace",
            "DispatchClass", "Enabled", "AutheEnabled", "Resource", "IsNameSpaceDefault", "MatchRoles", "Path",
            "CSPZENEnabled", "DeepSeeEnabled", "iKnowEnabled", "InbndWebServicesEnabled",
            "Recurse", "Type", "UseCookies", "CookiePath", "GroupById", "LoginPage", "Timeout", "ServeFiles",
            "AutoCompile", "LockCSPName", "Package", "SuperClass", "TwoFactorEnabled", "HyperEvent",
            "ErrorPage", "Event", "ChangePasswordPage", "RedirectEmptyPath");

    private final Element module;

    ModuleManifestTest() throws Exception {
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("module.xml").toFile());
        module = (Element) doc.getElementsByTagName("Module").item(0);
    }

    private List<Element> all(String tag) {
        NodeList nodes = module.getElementsByTagName(tag);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            out.add((Element) nodes.item(i));
        }
        return out;
    }

    private String text(String tag) {
        return module.getElementsByTagName(tag).item(0).getTextContent().trim();
    }

    @Test
    void namesAndVersionsTheModule() throws Exception {
        assertEquals("iris-terminal-mcp", text("Name"));
        String pom = Files.readString(Path.of("pom.xml"));
        Matcher v = Pattern.compile("<artifactId>iris-terminal-mcp</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertTrue(v.find());
        assertEquals(v.group(1), text("Version"), "module.xml and pom.xml versions differ");
        assertFalse(all("SystemRequirements").isEmpty());
        assertFalse(text("Description").isEmpty());
        assertFalse(text("Keywords").isEmpty());
    }

    /** The file a resource names in the checkout: a package's directory, a class's .cls file. */
    private static Path resourcePath(Element r) {
        String name = r.getAttribute("Name");
        String dir = r.getAttribute("Directory").isEmpty() ? "cls" : r.getAttribute("Directory");
        String bare = name.substring(0, name.length() - 4).replace('.', '/');
        return name.endsWith(".CLS") ? Path.of(dir, bare + ".cls") : Path.of(dir, bare);
    }

    @Test
    void everyResourceExists() {
        for (Element r : all("Resource")) {
            String name = r.getAttribute("Name");
            assertTrue(name.endsWith(".PKG") || name.endsWith(".CLS"), "expected a package or class resource: " + name);
            Path path = resourcePath(r);
            assertTrue(name.endsWith(".PKG") ? Files.isDirectory(path) : Files.isRegularFile(path), path + " does not exist");
        }
        for (Element t : all("UnitTest")) {
            Path dir = Path.of(t.getAttribute("Name").replaceFirst("^/", ""));
            Path pkg = dir.resolve(t.getAttribute("Package").replace('.', '/'));
            assertTrue(Files.isDirectory(pkg), pkg + " does not exist");
            assertEquals("test", t.getAttribute("Phase"));
            // test classes outside every shipped package, so packaging the module never carries them
            for (Element r : all("Resource")) {
                String shipped = r.getAttribute("Name").replaceFirst("\\.PKG$", "");
                String tests = t.getAttribute("Package");
                assertFalse(tests.equals(shipped) || tests.startsWith(shipped + "."),
                        "test package " + tests + " lies inside the shipped package " + shipped);
            }
        }
    }

    /**
     * Hosted review round 4, R4-11: zpm "publish" packs the module's resources and nothing else of the directory,
     * so every file an Invoke names under ${root} must be one: a class resource's file, a file of a package
     * resource, the FileCopy's jar, or a file of the unit tests' directory.
     */
    /**
     * Hosted review round 9, H9-4: IPM keeps each Invoke argument in a %String of MAXLEN 255
     * (%IPM.Storage.InvokeReference:Arg), validated when the module record is saved, before any phase runs.
     */
    @Test
    void everyInvokeArgumentFitsIpmsRecord() {
        for (Element i : all("Invoke")) {
            NodeList args = i.getElementsByTagName("Arg");
            for (int a = 0; a < args.getLength(); a++) {
                String arg = args.item(a).getTextContent();
                assertTrue(arg.length() <= 255, i.getAttribute("Class") + "." + i.getAttribute("Method") + "'s argument "
                        + (a + 1) + " has " + arg.length() + " characters; IPM stores at most 255");
            }
        }
    }

    @Test
    void everyFileAnInvokeNamesIsPublishedWithTheModule() {
        Pattern root = Pattern.compile("\\$\\{root\\}([A-Za-z0-9_./-]+)");
        int seen = 0;
        for (Element i : all("Invoke")) {
            NodeList args = i.getElementsByTagName("Arg");
            for (int a = 0; a < args.getLength(); a++) {
                Matcher m = root.matcher(args.item(a).getTextContent());
                while (m.find()) {
                    seen++;
                    Path file = Path.of(m.group(1));
                    boolean carried = all("Resource").stream().anyMatch(r -> file.startsWith(resourcePath(r)))
                            || all("FileCopy").stream().anyMatch(f -> file.equals(Path.of(f.getAttribute("Name"))))
                            || all("UnitTest").stream().anyMatch(t -> file.startsWith(Path.of(t.getAttribute("Name").replaceFirst("^/", ""))));
                    assertTrue(carried, "module.xml's Invoke names " + m.group() + ", which no resource carries: zpm \"publish\" would leave it out");
                }
            }
        }
        assertTrue(seen >= 2, "the jar check and the bootstrap's load name files under ${root}");
    }

    /**
     * The hosted jar the build writes is the one IPM copies, into the mgr directory (writable on kit
     * installs, unlike lib), and the installer is handed that same path, which is also the default
     * Terminal.Gateway falls back to.
     */
    @Test
    void copiesTheHostedJarTheBuildProducesIntoTheMgrDirectory() throws Exception {
        String pom = Files.readString(Path.of("pom.xml"));
        Matcher built = Pattern.compile("<outputFile>\\$\\{project\\.build\\.directory\\}/([^<]+)</outputFile>").matcher(pom);
        assertTrue(built.find(), "pom.xml no longer writes the hosted jar with <outputFile>");
        List<Element> copies = all("FileCopy");
        assertEquals(1, copies.size());
        Element copy = copies.get(0);
        assertEquals("target/" + built.group(1), copy.getAttribute("Name"));
        String target = copy.getAttribute("Target");
        assertEquals("${mgrdir}" + built.group(1), target);

        Element install = all("Invoke").stream().filter(i -> i.getAttribute("Method").equals("Install")).findFirst()
                .orElseThrow();
        assertEquals(target, install.getElementsByTagName("Arg").item(0).getTextContent().trim(),
                "the installer must define the server with the path FileCopy wrote");

        // hosted review round 8, H8-3: the root IPM loaded from is recorded first, for Install's module root verdict
        List<Element> activate = all("Invoke").stream().filter(i -> i.getAttribute("Phase").equals("Activate")).toList();
        Element record = activate.stream().filter(i -> i.getAttribute("Method").equals("RecordRoot")).findFirst().orElseThrow();
        assertEquals("${root}", record.getElementsByTagName("Arg").item(0).getTextContent().trim());
        assertTrue(activate.indexOf(record) < activate.indexOf(install) && record.getAttribute("When").equals("After"),
                "recorded before Install judges it");

        String gateway = Files.readString(Path.of("cls", "Terminal", "Gateway.cls"));
        Matcher jarName = Pattern.compile("Parameter\\s+JARNAME\\s*=\\s*\"([^\"]+)\"").matcher(gateway);
        assertTrue(jarName.find(), "Terminal.Gateway must declare Parameter JARNAME");
        assertEquals(built.group(1), jarName.group(1));
        Matcher defaultPath = Pattern.compile("ClassMethod DefaultJarPath\\(\\)[^{]*\\{([^}]*)\\}").matcher(gateway);
        assertTrue(defaultPath.find(), "Terminal.Gateway must have DefaultJarPath()");
        assertTrue(defaultPath.group(1).contains("##class(%File).ManagerDirectory()")
                && defaultPath.group(1).contains("..#JARNAME"), "DefaultJarPath() must be ${mgrdir}" + built.group(1)
                + ", as IPM resolves it: " + defaultPath.group(1));
    }

    /**
     * Issue 23: a load without the built jar stops in the first phase, before IPM loads or compiles a class, with
     * one line naming the build. The check can only use a system method (no Terminal class exists yet): an Arg's
     * #{expression} (IPM %Evaluate: after ${root} is replaced, "#\{([^}]+)\}" is evaluated, so the expression may
     * hold no other closing brace) gives %SYSTEM.Status.AppendStatus the status CheckStatus fails the phase on.
     * Each Arg fits IPM's MAXLEN of 255.
     */
    @Test
    void aLoadWithoutTheBuiltJarStopsBeforeAnythingIsCompiled() {
        String jar = all("FileCopy").get(0).getAttribute("Name");
        Element check = all("Invoke").stream().filter(i -> i.getAttribute("Class").equals("%SYSTEM.Status")).findFirst()
                .orElseThrow(() -> new AssertionError("module.xml has no jar check"));
        assertEquals("AppendStatus", check.getAttribute("Method"));
        assertEquals("Initialize", check.getAttribute("Phase"), "the first phase, before Reload and Compile");
        assertEquals("Before", check.getAttribute("When"));
        assertEquals("true", check.getAttribute("CheckStatus"));
        NodeList args = check.getElementsByTagName("Arg");
        assertEquals(2, args.getLength());
        String expr = args.item(0).getTextContent().trim();
        for (int i = 0; i < args.getLength(); i++) {
            assertTrue(args.item(i).getTextContent().trim().length() <= 255, "IPM keeps an Arg of at most 255 characters");
        }
        assertTrue(expr.startsWith("#{") && expr.endsWith("}"), expr);
        String inner = expr.substring(2, expr.length() - 1).replace("${root}", "/module/");
        assertFalse(inner.contains("}"), "IPM's #{...} ends at the first closing brace: " + inner);
        assertTrue(inner.contains("##class(%File).Exists(\"/module/" + jar + "\")"), "checks the file FileCopy copies: " + inner);
        assertTrue(inner.contains("mvn -B -q package -DskipTests") && inner.contains("./install"), "names the build: " + inner);
        assertEquals("1", args.item(1).getTextContent().trim());
    }

    /**
     * Issue 21/23: the Terminal package must never be compiled where agents can write (USER's routine database on
     * the default layout), because its code runs with the web application's role. Before Reload, in the order IPM
     * runs a phase's Invokes (the order written), after the jar check: the bootstrap class is loaded from its file
     * and its Prepare (database, resource, mappings) runs, so Reload and Compile go through the mapping.
     */
    @Test
    void theCodeDatabaseIsPreparedBeforeAnyTerminalClassIsLoaded() throws Exception {
        List<Element> before = all("Invoke").stream()
                .filter(i -> i.getAttribute("Phase").equals("Initialize") && i.getAttribute("When").equals("Before"))
                .toList();
        assertEquals(List.of("%SYSTEM.Status.AppendStatus", "%SYSTEM.OBJ.Load", "TerminalSetup.CodeDatabase.Prepare"),
                before.stream().map(i -> i.getAttribute("Class") + "." + i.getAttribute("Method")).toList(),
                "jar check, then the bootstrap's load, then its Prepare");
        for (Element i : before) {
            assertEquals("true", i.getAttribute("CheckStatus"), "a failed step must stop the load before Reload");
        }
        NodeList args = before.get(1).getElementsByTagName("Arg");
        String file = args.item(0).getTextContent().trim();
        assertTrue(file.startsWith("${root}"), file);
        String bootstrap = Files.readString(Path.of(file.substring("${root}".length())));
        assertTrue(bootstrap.contains("Class TerminalSetup.CodeDatabase "), "the loaded file defines the class Prepare is called on");
        assertTrue(args.item(1).getTextContent().trim().contains("c"), "loaded and compiled");
        assertFalse(Path.of(file.substring("${root}".length())).startsWith(Path.of("cls", "Terminal")),
                "the bootstrap is outside the package it maps (a class of the package would be loaded into the namespace's own database)");
        String installer = Files.readString(Path.of("cls", "Terminal", "Installer.cls"));
        for (String name : List.of("DATABASE", "RESOURCE")) {
            Matcher setup = Pattern.compile("Parameter " + name + " = \"([^\"]+)\";").matcher(bootstrap);
            Matcher inst = Pattern.compile("Parameter CODE" + name + " = \"([^\"]+)\";").matcher(installer);
            assertTrue(setup.find() && inst.find(), name);
            assertEquals(setup.group(1), inst.group(1), "the bootstrap and the installer name one code " + name.toLowerCase());
        }
    }

    /**
     * Install checks where the package runs from before it creates or opens anything, and removes the bootstrap
     * (loaded into the namespace's own, agent-writable database) before it ends; Uninstall removes the mappings
     * last of all, since they are what makes the installer's own class visible.
     */
    @Test
    void installRefusesAnUnsafeLayoutFirstAndUninstallUnmapsLast() throws Exception {
        String installer = Files.readString(Path.of("cls", "Terminal", "Installer.cls"));
        String install = body(installer, "Install");
        int verdict = install.indexOf("..CodeVerdict(ns)");
        assertTrue(verdict > 0 && verdict < install.indexOf("..CheckApp(") && verdict < install.indexOf("EnsureResources"),
                "the code database is checked before anything is created");
        assertTrue(install.contains("DeletePackage(\"TerminalSetup\""), "Install deletes the bootstrap");
        String uninstall = body(installer, "UninstallOne");
        int unmap = uninstall.indexOf("..Unmap()");
        assertTrue(unmap > 0, "the last Uninstall removes the mappings");
        String after = uninstall.substring(uninstall.indexOf('\n', unmap), uninstall.indexOf("} Catch", unmap));
        assertFalse(Pattern.compile("##class\\(Terminal\\.|\\.\\.[A-Z]\\w*\\(").matcher(after).find(),
                "nothing of the package is called after the mappings are gone: " + after);
        assertTrue(installer.contains("Do ..Line(pReport, \"code database\", ..CodeVerdict(ns))"), "Check reports it");
    }

    private static String body(String source, String method) {
        Matcher m = Pattern.compile("ClassMethod " + method + "\\(").matcher(source);
        assertTrue(m.find(), method);
        int open = source.indexOf("\n{\n", m.start());
        int close = source.indexOf("\n}\n", open);
        return source.substring(open, close);
    }

    @Test
    void everyInvokedMethodExists() throws Exception {
        for (Element inv : all("Invoke")) {
            String cls = inv.getAttribute("Class");
            if (cls.startsWith("%SYSTEM.")) {
                continue; // the jar check and the bootstrap's load
            }
            assertTrue(cls.startsWith("Terminal.") || cls.startsWith("TerminalSetup."), cls);
            Path file = Path.of("cls", cls.replace('.', '/') + ".cls");
            String source = Files.readString(file);
            assertTrue(Pattern.compile("ClassMethod\\s+" + inv.getAttribute("Method") + "\\(").matcher(source).find(),
                    file + " has no ClassMethod " + inv.getAttribute("Method"));
        }
    }

    @Test
    void theInstallerSetsOnlyRealApplicationProperties() throws Exception {
        String installer = Files.readString(Path.of("cls", "Terminal", "Installer.cls"));
        Matcher m = Pattern.compile("props\\(\"(\\w+)\"\\)").matcher(installer);
        int seen = 0;
        while (m.find()) {
            seen++;
            assertTrue(APPLICATION_PROPERTIES.contains(m.group(1)), "not a Security.Applications property: " + m.group(1));
        }
        assertTrue(seen >= 5, "the parser found no web application properties in Terminal.Installer");
    }
}

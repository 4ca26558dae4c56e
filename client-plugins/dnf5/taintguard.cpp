// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * taintguard for dnf5: stop a transaction before rpm runs when taintguard
 * would refuse a package.  The same judgement and message as the dnf 4
 * plugin (client-plugins/dnf4/taintguard.py): the downloaded packages are
 * judged by `taintguard audit --format json` in pre_transaction (after the
 * rpm test transaction, before the real one), packages already downloaded
 * by an earlier run in goal_resolved (before the prompt); a refusal throws
 * with one message: each refused package with its reason and override, the
 * packages of the transaction that need it (libdnf5's provides and file
 * queries, to a fixed point) and the command line that installs the rest.
 * The message is also written to stderr: libdnf5 keeps rpm's log from the
 * terminal and a front end may not print a plugin's exception in full.
 * A kernel among the downloaded packages: the lines audit says of the root's
 * out-of-tree modules under it are written to stderr in pre_transaction, once
 * (rpm's plugin keeps them to its debug log: %_taintguard_kernel_update_said);
 * the transaction goes on unless %_taintguard_kernel_update is deny.
 */
#include <fnmatch.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <json-c/json.h>
#include <rpm/rpmmacro.h>

#include <libdnf5/base/base.hpp>
#include <libdnf5/base/transaction.hpp>
#include <libdnf5/base/transaction_package.hpp>
#include <libdnf5/conf/config_parser.hpp>
#include <libdnf5/plugin/iplugin.hpp>
#include <libdnf5/rpm/checksum.hpp>
#include <libdnf5/rpm/package_query.hpp>
#include <libdnf5/transaction/transaction_item_action.hpp>

namespace {

constexpr const char *PLUGIN_NAME = "taintguard";
constexpr libdnf5::plugin::Version PLUGIN_VERSION{1, 0, 0};
constexpr libdnf5::PluginAPIVersion REQUIRED_API{.major = 2, .minor = 1};	/* goal_resolved */
constexpr size_t MAXLINE = 160;
const std::string TAG = "taintguard: ", MORE = "taintguard:   ";
const char *attrs[]{"author.name", "description", nullptr};
const char *attrs_value[]{"taintguard", "stop a transaction taintguard would refuse before rpm runs"};

std::exception_ptr last_exception;

/* A refusal: one message, said by dnf5 as the reason the transaction stopped. */
class Stop : public std::runtime_error, public libdnf5::plugin::StopRequest {
public:
	using std::runtime_error::runtime_error;
};

/* Cut a line at spaces so that no line is longer than MAXLINE. */
void wrap(std::vector<std::string> &out, std::string line)
{
	while (line.size() > MAXLINE) {
		size_t cut = line.rfind(' ', MAXLINE - 1);
		if (cut == std::string::npos || cut <= MORE.size())
			cut = MAXLINE;
		out.push_back(line.substr(0, cut));
		size_t rest = line.find_first_not_of(' ', cut);
		line = MORE + (rest == std::string::npos ? "" : line.substr(rest));
	}
	out.push_back(line);
}

std::string shell_quote(const std::string &a)
{
	bool plain = !a.empty() && std::all_of(a.begin(), a.end(), [](char c) {
		return isalnum((unsigned char)c) || strchr("@%+=:,./-_", c);
	});
	if (plain)
		return a;
	std::string q = "'";
	for (char c : a)
		q += c == '\'' ? std::string("'\\''") : std::string(1, c);
	return q + "'";
}

/* A shell command split with " \" continuations, every line <= MAXLINE. */
void command_lines(std::vector<std::string> &out, const std::vector<std::string> &argv)
{
	std::string cur = " ";
	for (const auto &x : argv) {
		std::string a = shell_quote(x);
		if (cur.size() > 2 && cur.size() + 1 + a.size() + 2 > MAXLINE) {
			out.push_back(cur + " \\");
			cur = "   ";
		}
		cur += " " + a;
	}
	out.push_back(cur);
}

std::string macro(const char *m)
{
	char *v = rpmExpand(m, nullptr);
	std::string s = v ? v : "";
	free(v);
	while (!s.empty() && isspace((unsigned char)s.back()))
		s.pop_back();
	return s;
}

std::string json_str(json_object *o, const char *key)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return "";
	return json_object_get_string(v);
}

/* Run @argv, return its stdout; stderr goes to the terminal. */
std::string run(const std::vector<std::string> &argv, int &status)
{
	int fd[2];
	if (pipe(fd) < 0)
		throw Stop(TAG + "cannot judge the transaction: pipe: " + strerror(errno));
	pid_t pid = fork();
	if (pid < 0)
		throw Stop(TAG + "cannot judge the transaction: fork: " + strerror(errno));
	if (pid == 0) {
		std::vector<char *> v;
		for (const auto &a : argv)
			v.push_back(const_cast<char *>(a.c_str()));
		v.push_back(nullptr);
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execv(v[0], v.data());
		fprintf(stderr, "taintguard: %s: %s\n", v[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	std::string out;
	char buf[65536];
	ssize_t n;
	while ((n = read(fd[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			out.append(buf, n);
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return out;
}

/* A kernel of the transaction: the lines audit said of the root's modules under it. */
struct KernelUpdate {
	bool deny;	/* %_taintguard_kernel_update deny and a module it breaks */
	std::vector<std::string> lines;
};

KernelUpdate kernel_update(json_object *ku)
{
	KernelUpdate k{false, {}};
	json_object *ls;
	size_t n = 0;
	if (json_object_object_get_ex(ku, "lines", &ls) && json_object_is_type(ls, json_type_array))
		for (; n < json_object_array_length(ls); n++)
			wrap(k.lines, TAG + json_object_get_string(json_object_array_get_idx(ls, n)));
	std::string rel = json_str(ku, "release"), nevra = json_str(ku, "nevra"), s = n == 1 ? "" : "s";
	k.deny = n && json_str(ku, "error").empty() && macro("%{?_taintguard_kernel_update}") == "deny";
	if (!json_str(ku, "error").empty())
		wrap(k.lines, TAG + "kernel " + rel + " (" + nevra + "): " + json_str(ku, "error"));
	else if (k.deny)
		wrap(k.lines, TAG + "refusing to install " + nevra + ": " + std::to_string(n) + " installed module" +
			      s + " would not load cleanly under kernel " + rel +
			      " (_taintguard_kernel_update is deny)");
	else if (n)
		wrap(k.lines, TAG + "kernel " + rel + " (" + nevra + "): " + std::to_string(n) + " installed module" + s +
			      " will not load cleanly under it (installing it anyway; _taintguard_kernel_update deny "
			      "stops such a transaction)");
	return k;
}

struct Refused {
	libdnf5::rpm::Package pkg;
	std::vector<std::string> lines;
};

class Taintguard : public libdnf5::plugin::IPlugin2_1 {
public:
	Taintguard(libdnf5::plugin::IPluginData &data, libdnf5::ConfigParser &parser)
		: IPlugin2_1(data)
	{
		if (parser.has_option("main", "command"))
			command = parser.get_value("main", "command");
		if (parser.has_option("main", "cache"))
			cache = parser.get_value("main", "cache");
	}

	libdnf5::PluginAPIVersion get_api_version() const noexcept override { return REQUIRED_API; }
	const char *get_name() const noexcept override { return PLUGIN_NAME; }
	libdnf5::plugin::Version get_version() const noexcept override { return PLUGIN_VERSION; }
	const char *const *get_attributes() const noexcept override { return attrs; }
	const char *get_attribute(const char *name) const noexcept override
	{
		for (size_t i = 0; attrs[i]; ++i)
			if (strcmp(name, attrs[i]) == 0)
				return attrs_value[i];
		return nullptr;
	}

	/* Before the prompt: packages already downloaded, or known to the audit cache. */
	void goal_resolved(const libdnf5::base::Transaction &ts) override
	{
		if (macro("%{?_taintguard_mode}") != "off")	/* a kernel's lines are said here, not by rpm */
			rpmPushMacro(nullptr, "_taintguard_kernel_update_said", nullptr, "1", RMIL_GLOBAL);
		judge(ts, true, "taintguard, before downloading (verdicts already known)");
	}

	void pre_transaction(const libdnf5::base::Transaction &ts) override
	{
		judge(ts, false, "taintguard stopped the transaction before rpm ran");
	}

private:
	std::string command = TG_BINDIR "/taintguard", cache;
	std::vector<KernelUpdate> kernels;	/* of the last audit of downloaded files */

	void judge(const libdnf5::base::Transaction &ts, bool cached_only, const std::string &when)
	{
		std::string mode = macro("%{?_taintguard_mode}");
		if (mode == "off" || (cached_only && mode == "warn"))	/* an invalid mode enforces */
			return;
		std::vector<libdnf5::rpm::Package> adding, leaving;
		for (const auto &tp : ts.get_transaction_packages()) {
			auto a = tp.get_action();
			if (libdnf5::transaction::transaction_item_action_is_inbound(a))
				adding.push_back(tp.get_package());
			else if (libdnf5::transaction::transaction_item_action_is_outbound(a))
				leaving.push_back(tp.get_package());
		}
		kernels.clear();
		auto refused = audit(adding, cached_only);
		if (!refused.empty() && mode != "warn") {
			std::string msg = message(refused, adding, leaving, when);
			fprintf(stderr, "%s\n", msg.c_str());
			fflush(stderr);
			throw Stop("taintguard refused a package of the transaction (above)");
		}
		bool deny = std::any_of(kernels.begin(), kernels.end(), [](const KernelUpdate &k) { return k.deny; });
		if (deny)
			fprintf(stderr, "%s: a kernel would break installed modules:\n", when.c_str());
		for (const auto &k : kernels)
			if (!deny || k.deny)
				for (const auto &l : k.lines)
					fprintf(stderr, "%s\n", l.c_str());
		fflush(stderr);
		if (deny)
			throw Stop("taintguard refused a kernel of the transaction (above)");
	}

	/*
	 * The refused packages of @pkgs: their downloaded files, or (@cached_only,
	 * before the download) the files an earlier run left and the packages
	 * whose checksum taintguard's audit cache knows.
	 */
	std::vector<Refused> audit(const std::vector<libdnf5::rpm::Package> &pkgs, bool cached_only)
	{
		std::map<std::string, libdnf5::rpm::Package> files, sums;
		for (const auto &p : pkgs) {
			std::string f = p.get_package_path();
			struct stat st;
			if (f.empty() || (cached_only && stat(f.c_str(), &st) < 0)) {
				auto c = p.get_checksum();
				if (cached_only && !c.get_checksum().empty())
					sums.emplace(c.get_type_str() + ":" + c.get_checksum(), p);
				continue;
			}
			char *rp = realpath(f.c_str(), nullptr);
			files.emplace(rp ? rp : f, p);
			free(rp);
		}
		auto refused = run_audit({"--no-cache"}, files, "file", cached_only);
		std::vector<std::string> opts{"--cached-only"};
		if (!cache.empty())
			opts.insert(opts.end(), {"--cache", cache});
		auto known = run_audit(opts, sums, "checksum", true);
		refused.insert(refused.end(), known.begin(), known.end());
		return refused;
	}

	/* `taintguard audit --format json OPTS ARGS`; a package of @args by its JSON @field. */
	std::vector<Refused> run_audit(const std::vector<std::string> &opts,
				       const std::map<std::string, libdnf5::rpm::Package> &args, const char *field,
				       bool cached_only)
	{
		std::vector<Refused> refused;
		if (args.empty())
			return refused;
		std::vector<std::string> argv{command, "audit", "--format", "json", "--quiet"};
		argv.insert(argv.end(), opts.begin(), opts.end());
		std::string root = get_base().get_config().get_installroot_option().get_value();
		if (!root.empty() && root != "/")
			argv.insert(argv.end(), {"--root", root});
		std::string policy = macro("%{?_taintguard_policy}");
		if (!policy.empty())
			argv.insert(argv.end(), {"--policy", policy});
		for (const auto &f : args)
			argv.push_back(f.first);
		int status = 0;
		std::string out = run(argv, status);
		json_object *report = json_tokener_parse(out.c_str()), *list;
		if (!report || !json_object_object_get_ex(report, "packages", &list)) {
			if (report)
				json_object_put(report);
			throw Stop(TAG + "cannot judge the transaction: " + command + " audit exited " +
				   std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1));
		}
		json_object *kus;
		if (!cached_only && json_object_object_get_ex(report, "kernel_updates", &kus) &&
		    json_object_is_type(kus, json_type_array))
			for (size_t i = 0; i < json_object_array_length(kus); i++)
				kernels.push_back(kernel_update(json_object_array_get_idx(kus, i)));
		for (size_t i = 0; i < json_object_array_length(list); i++) {
			json_object *jp = json_object_array_get_idx(list, i);
			std::string k = json_str(jp, field);
			char *rp = strcmp(field, "file") ? nullptr : realpath(k.c_str(), nullptr);
			auto it = args.find(rp ? rp : k);
			free(rp);
			bool deny = json_str(jp, "action") == "deny";
			if (it == args.end() || !(deny || (!cached_only && json_str(jp, "status") == "error")))
				continue;
			refused.push_back({it->second, reason_lines(it->second, jp, policy)});
		}
		json_object_put(report);
		return refused;
	}

	static std::vector<std::string> reason_lines(const libdnf5::rpm::Package &p, json_object *jp,
						     const std::string &policy)
	{
		std::vector<std::string> lines;
		std::string first, nevra = json_str(jp, "nevra");
		json_object *mods;
		if (json_object_object_get_ex(jp, "modules", &mods))
			for (size_t j = 0; j < json_object_array_length(mods); j++) {
				json_object *m = json_object_array_get_idx(mods, j);
				if (json_str(m, "action") != "deny" && json_str(m, "error").empty())
					continue;
				lines.push_back(TAG + json_str(m, "headline"));
				if (first.empty())
					first = json_str(m, "module");
			}
		if (!json_str(jp, "error").empty())
			lines.push_back(TAG + "refused " + nevra + ": " + json_str(jp, "error"));
		lines.push_back(TAG + "to install " + nevra + " anyway, add an exception (package: \"" +
				p.get_name() + "\", module: \"" + (first.empty() ? "*" : first) +
				"\", action: mark, justification: ...)");
		lines.push_back(MORE + "to " + (policy.empty() ? "/etc/taintguard/policy.yaml" : policy) +
				", or set the rpm macro _taintguard_mode to warn");
		lines.push_back(MORE + "details: taintguard explain " + p.get_package_path());
		return lines;
	}

	/*
	 * Packages of the transaction that need a left-out one, in the order found,
	 * each with the capability and the left-out provider: a requirement met by
	 * a left-out package and, without them, by nothing that stays (an added
	 * package, or an installed one not leaving; the old version of a refused
	 * upgrade stays).  libdnf5's own matching, to a fixed point.
	 */
	std::vector<std::pair<libdnf5::rpm::Package, std::pair<std::string, libdnf5::rpm::Package>>>
	dependents(const std::vector<Refused> &refused, const std::vector<libdnf5::rpm::Package> &adding,
		   const std::vector<libdnf5::rpm::Package> &leaving)
	{
		auto &base = get_base();
		std::set<libdnf5::rpm::Package> out, add(adding.begin(), adding.end()), gone;
		std::set<std::string> out_names;
		for (const auto &r : refused) {
			out.insert(r.pkg);
			out_names.insert(r.pkg.get_name());
		}
		for (const auto &p : leaving)
			if (!out_names.count(p.get_name()))
				gone.insert(p);
		libdnf5::rpm::PackageQuery installed(base);
		installed.filter_installed();
		std::set<libdnf5::rpm::Package> inst(installed.begin(), installed.end());
		std::vector<std::pair<libdnf5::rpm::Package, std::pair<std::string, libdnf5::rpm::Package>>> deps;
		for (bool changed = true; changed;) {
			changed = false;
			for (const auto &p : adding) {
				if (out.count(p))
					continue;
				for (const auto &req : p.get_requires()) {
					std::string cap = req.to_string();
					if (cap.rfind("rpmlib(", 0) == 0)
						continue;
					libdnf5::rpm::PackageQuery q(base);
					q.filter_provides(req);
					std::set<libdnf5::rpm::Package> prov(q.begin(), q.end());
					if (cap[0] == '/') {
						libdnf5::rpm::PackageQuery f(base);
						f.filter_file(cap);
						prov.insert(f.begin(), f.end());
					}
					const libdnf5::rpm::Package *by = nullptr;
					bool stays = false;
					for (const auto &x : prov) {
						if (out.count(x)) {
							if (!by)
								by = &x;
						} else if (add.count(x) || (inst.count(x) && !gone.count(x))) {
							stays = true;
						}
					}
					if (!by || stays)
						continue;
					deps.push_back({p, {cap, *by}});
					out.insert(p);
					changed = true;
					break;
				}
			}
		}
		return deps;
	}

	/* This run's command line without the left-out packages, or none. */
	static std::vector<std::string> rest_command(const std::set<libdnf5::rpm::Package> &left_out)
	{
		std::ifstream in("/proc/self/cmdline", std::ios::binary);
		std::vector<std::string> argv, kept;
		std::string a;
		while (std::getline(in, a, '\0'))
			argv.push_back(a);
		std::set<std::string> names;
		std::vector<std::string> forms;
		for (const auto &p : left_out) {
			std::string n = p.get_name(), vr = p.get_version() + "-" + p.get_release();
			names.insert(n);
			forms.insert(forms.end(), {n, n + "." + p.get_arch(), n + "-" + p.get_version(), n + "-" + vr,
						   n + "-" + vr + "." + p.get_arch(), p.get_full_nevra()});
		}
		bool spec = false;
		for (size_t i = 1; i < argv.size(); i++) {
			const auto &x = argv[i];
			bool drop = x[0] != '-' && std::any_of(forms.begin(), forms.end(), [&](const std::string &f) {
				return fnmatch(x.c_str(), f.c_str(), 0) == 0;
			});
			if (drop)
				continue;
			kept.push_back(x);
			/* a word after the command verb that is not an option is a spec */
			spec |= x[0] != '-' && i > 1 && argv[i - 1][0] != '-' ? true : false;
		}
		if (!spec)
			return {};
		std::string ex = "--exclude=";
		for (const auto &n : names)
			ex += (ex.back() == '=' ? "" : ",") + n;
		kept.insert(kept.begin(), "dnf5");
		kept.push_back(ex);
		return kept;
	}

	std::string message(const std::vector<Refused> &refused, const std::vector<libdnf5::rpm::Package> &adding,
			    const std::vector<libdnf5::rpm::Package> &leaving, const std::string &when)
	{
		auto deps = dependents(refused, adding, leaving);
		std::map<libdnf5::rpm::Package, libdnf5::rpm::Package> via;	/* dependent -> provider */
		std::set<libdnf5::rpm::Package> roots, left_out;
		for (const auto &r : refused)
			roots.insert(r.pkg), left_out.insert(r.pkg);
		for (const auto &d : deps)
			via.emplace(d.first, d.second.second), left_out.insert(d.first);
		auto origin = [&](libdnf5::rpm::Package p) {
			while (!roots.count(p))
				p = via.at(p);
			return p;
		};
		std::vector<std::string> lines;
		char head[256];
		snprintf(head, sizeof(head), "%s: %zu package%s would be refused, %zu more need%s %s; nothing was installed:",
			 when.c_str(), refused.size(), refused.size() != 1 ? "s" : "", deps.size(),
			 deps.size() == 1 ? "s" : "", refused.size() == 1 ? "it" : "them");
		lines.push_back(head);
		for (const auto &r : refused) {
			for (const auto &l : r.lines)
				wrap(lines, l);
			for (const auto &d : deps) {
				if (!(origin(d.first) == r.pkg))
					continue;
				std::string why = roots.count(d.second.second)
					? "which taintguard refused"
					: "which is left out too (it needs " + origin(d.second.second).get_name() + ")";
				wrap(lines, TAG + d.first.get_nevra() + ": not installed: needs " + d.second.first + ", " + why);
			}
		}
		auto rest = rest_command(left_out);
		if (rest.empty()) {
			lines.push_back(TAG + "nothing else was asked for");
		} else {
			lines.push_back(TAG + "to install the rest:");
			command_lines(lines, rest);
		}
		std::string msg;
		for (const auto &l : lines)
			msg += (msg.empty() ? "" : "\n") + l;
		return msg;
	}
};

}  // namespace

extern "C" {

libdnf5::PluginAPIVersion libdnf_plugin_get_api_version(void)
{
	return REQUIRED_API;
}

const char *libdnf_plugin_get_name(void)
{
	return PLUGIN_NAME;
}

libdnf5::plugin::Version libdnf_plugin_get_version(void)
{
	return PLUGIN_VERSION;
}

libdnf5::plugin::IPlugin *libdnf_plugin_new_instance([[maybe_unused]] libdnf5::LibraryVersion library_version,
						     libdnf5::plugin::IPluginData &data, libdnf5::ConfigParser &parser)
try {
	return new Taintguard(data, parser);
} catch (...) {
	last_exception = std::current_exception();
	return nullptr;
}

void libdnf_plugin_delete_instance(libdnf5::plugin::IPlugin *plugin_object)
{
	delete plugin_object;
}

std::exception_ptr *libdnf_plugin_get_last_exception(void)
{
	return &last_exception;
}
}

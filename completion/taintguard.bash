# bash completion for taintguard(1)                         -*- shell-script -*-
_taintguard()
{
	local cur prev words cword
	_init_completion || return
	local cmds="check audit explain status policy kernel"
	if [[ $cword -eq 1 ]]; then
		COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
		return
	fi
	case $prev in
	--kernel | -k)
		COMPREPLY=($(compgen -W "$(ls /lib/modules 2>/dev/null)" -- "$cur"))
		return ;;
	--format | -f)
		if [[ ${words[1]} == audit ]]; then
			COMPREPLY=($(compgen -W "text json jsonl junit sarif" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "text json junit sarif" -- "$cur"))
		fi
		return ;;
	--metalink | --mirrorlist)
		return ;;
	--ca-cert)
		_filedir
		return ;;
	--root | -r | --dbpath | --cache)
		_filedir -d
		return ;;
	--symvers | -s | --policy | -p | --config | -c)
		_filedir
		return ;;
	--jobs | -j | --max-module-size | -M)
		return ;;
	--limit | -L)
		COMPREPLY=($(compgen -S = -W "input-size module-size sections symbols modinfo symvers-size policy-size policy-depth kernel-image-size" -- "$cur"))
		compopt -o nospace 2>/dev/null
		return ;;
	esac
	local opts
	case ${words[1]} in
	check) opts="--kernel --symvers --config --root --policy --format --jobs --max-module-size --limit --verbose --help" ;;
	audit) opts="--kernel --symvers --config --root --installed --dbpath --policy --format --excludes --metalink --mirrorlist --ca-cert --cache --no-cache --cached-only --jobs --max-module-size --limit --quiet --verbose --help" ;;
	status) opts="--root --dbpath --format --check --skip --accept --verbose --help" ;;
	explain) opts="--root --help" ;;
	kernel)
		if [[ $cword -eq 2 ]]; then
			COMPREPLY=($(compgen -W "show" -- "$cur"))
			return
		fi
		if [[ $cur != -* ]]; then
			COMPREPLY=($(compgen -W "$(ls /lib/modules 2>/dev/null)" -- "$cur"))
			return
		fi
		opts="--root --json --help" ;;
	policy)
		if [[ $cword -eq 2 ]]; then
			COMPREPLY=($(compgen -W "check show sync" -- "$cur"))
			return
		fi
		opts="--kernel-source --write --policy --help" ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		_filedir '@(ko|xz|zst|gz|rpm|yaml|yml)'
	fi
} &&
	complete -F _taintguard taintguard

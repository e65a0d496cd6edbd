// Package winpath says which Windows paths name something other than a file on a local disk, so that the server
// can refuse a client's path before anything opens it: Windows connects to the server of \\server\share to look
// at it, sending the user's NTLM credentials, and \\?\ and \\.\ reach devices and the NT namespace.
package winpath

// IsShareOrDevice reports whether path, read as a Windows path, names a network share (\\server\share) or goes
// through the device namespaces (\\?\…, \\.\…, \??\…). Windows takes / for \, so //server/share is one too.
func IsShareOrDevice(path string) bool {
	sep := func(i int) bool { return i < len(path) && (path[i] == '\\' || path[i] == '/') }
	return sep(0) && (sep(1) || (len(path) >= 4 && path[1:3] == "??" && sep(3)))
}

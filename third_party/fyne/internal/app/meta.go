package app

// these internal variables are set by the fyne build command so that the "FyneApp.toml" data is readable at runtime.
var (
	MetaIcon    = "" // this will contain base64 encoded icon bytes
	MetaID      = "com.example"
	MetaName    = "Fyne App"
	MetaVersion = "1.0.0"
	MetaBuild   = "1"
)

package jsonedit

import (
	"errors"
	"testing"
)

func TestEdit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		edit func(*Object)
		want string
	}{
		{"empty input", "  ", func(o *Object) { o.Set("a", []byte(`1`)) }, "{\n  \"a\": 1\n}\n"},
		{"order kept, value replaced in place", `{"z":1,"a":{"x":[1, 2]},"m":true}`,
			func(o *Object) { o.Set("a", []byte(`"new"`)) }, "{\n  \"z\": 1,\n  \"a\": \"new\",\n  \"m\": true\n}\n"},
		{"append and delete", `{"a":1,"b":2}`, func(o *Object) { o.Delete("a"); _ = o.SetValue("c", []string{"x"}) },
			"{\n  \"b\": 2,\n  \"c\": [\n    \"x\"\n  ]\n}\n"},
		{"repeated key keeps its first place and last value", `{"a":1,"b":2,"a":3}`, func(*Object) {},
			"{\n  \"a\": 3,\n  \"b\": 2\n}\n"},
		{"unicode and escapes survive", `{"k\u00e9":"l\"ine\n"}`, func(*Object) {}, "{\n  \"ké\": \"l\\\"ine\\n\"\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			tt.edit(&o)
			got, err := o.Format()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`[1]`, `"s"`, `{"a":}`, `{"a":1`, `{"a":1} {}`, `{"a":1} x`, `{"a":1,}`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%s) succeeded, want an error", in)
		}
	}
	if _, err := Parse([]byte(`[1]`)); !errors.Is(err, ErrNotObject) {
		t.Errorf("got %v, want ErrNotObject", err)
	}
}

func TestObjectAccessor(t *testing.T) {
	t.Parallel()
	o, _ := Parse([]byte(`{"s":{"a":1},"n":2}`))
	if inner, ok := o.Object("s"); !ok || len(inner) != 1 || inner[0].Key != "a" {
		t.Errorf("Object(s) = %v, %v", inner, ok)
	}
	if _, ok := o.Object("n"); ok {
		t.Error("Object(n) ok for a number")
	}
	if _, ok := o.Object("missing"); ok {
		t.Error("Object(missing) ok")
	}
}
